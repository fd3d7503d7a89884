"""A TCP proxy between a client and a World server process that breaks the link at planned
moments, as a network or a crash would: what the exactly-once tests drive a run through.

The moments are counted in Execute action requests passing through (the n-th one seen, its
resends included); at each one planned, one of:

- ``drop-answer``: the request reaches the World; its answer is dropped and the client's
  connection closed (a proxy or a network that fails after the server read the request);
- ``kill-before``: the World is killed (SIGKILL) before the request reaches it;
- ``kill-during``: the World is killed just after the request was passed on (it may or may
  not have acted: a race, either way is right);
- ``kill-after``: the World is killed once its answer is in, and the answer dropped (it acted
  and saved, the client never heard).

A killed World is started again on its port with its ``--state`` file; a moment that comes
while it is starting waits for the next Execute action. Nothing here depends on timing: each
cut is decided by what passes through.
"""

from __future__ import annotations

import asyncio
import contextlib

from wwm.server.process import ServerProcess

MARK = b'"query":"Execute action"'
MODES = ("drop-answer", "kill-before", "kill-during", "kill-after")


class CuttingProxy:
    def __init__(self, server: ServerProcess, plan: dict[int, str]) -> None:
        self.server = server
        self.plan = dict(plan)
        self.seen = 0             # Execute action requests seen
        self.done: list[tuple[int, str]] = []  # the cuts made: (request count, mode)
        self.restarts = 0
        self._starting: asyncio.Task[None] | None = None
        self._listener: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def url(self) -> str:
        assert self._listener is not None
        return f"http://127.0.0.1:{self._listener.sockets[0].getsockname()[1]}/"

    async def __aenter__(self) -> CuttingProxy:
        self._listener = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._listener is not None
        self._listener.close()
        for task in list(self._tasks):
            task.cancel()
        if self._starting is not None:
            await self._starting

    @property
    def starting(self) -> bool:
        return self._starting is not None and not self._starting.done()

    def _kill(self) -> None:
        self.server.kill()
        self.restarts += 1
        self._starting = asyncio.get_running_loop().create_task(asyncio.to_thread(self.server.start))

    def _cut_due(self) -> str | None:
        """The cut planned for this or an earlier count, unless the World is starting."""
        if self.starting:
            return None
        due = [n for n in self.plan if n <= self.seen]
        if not due:
            return None
        n = min(due)
        mode = self.plan.pop(n)
        self.done.append((self.seen, mode))
        return mode

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.server.port)
        except OSError:
            writer.close()
            return
        cut_answer: list[str] = []  # the mode of a cut that waits for the World's answer

        async def downstream() -> None:
            try:
                while data := await up_reader.read(65536):
                    if cut_answer:  # the World answered: dropped
                        if cut_answer.pop() == "kill-after":
                            self._kill()
                        return
                    writer.write(data)
                    await writer.drain()
            finally:  # the World's side closed (or was cut): so is the client's
                writer.close()
                up_writer.close()

        down = asyncio.get_running_loop().create_task(downstream())
        self._tasks.add(down)
        down.add_done_callback(self._tasks.discard)
        tail = b""
        try:
            while data := await reader.read(65536):
                seen = (tail + data).count(MARK)
                tail = (tail + data)[-(len(MARK) - 1):]
                self.seen += seen
                mode = self._cut_due() if seen else None
                if mode == "kill-before":
                    self._kill()
                    break
                up_writer.write(data)
                await up_writer.drain()
                if mode == "kill-during":
                    self._kill()
                    break
                if mode in ("drop-answer", "kill-after"):
                    cut_answer.append(mode)
        except (OSError, asyncio.IncompleteReadError):
            pass
        finally:
            if not cut_answer:
                writer.close()
                up_writer.close()
            with contextlib.suppress(Exception):
                await down
