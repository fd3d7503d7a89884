"""``wwm serve --workers N``: N processes answering on one port, each run kept on the worker
that opened it, so a server uses every core.

A run's state is a live Python object (a world, a mind) that its queries change one after
another; sharing it between processes would mean loading and saving it, and locking it, on
every query. So a run stays in the process that made it, and its run ID says which: worker
``k`` mints run IDs ``w<k>.<secret>``. The workers accept connections from one listening
socket (the kernel hands each new connection to one of them); a client keeps its connection
for its run's queries (keep-alive, or a persistent binding), so nearly every query arrives at
the worker that holds its run and is answered there. A query that arrives elsewhere (a client
that opened a new connection) is passed, as the bytes it came in, to the worker its run ID
names, over a Unix socket between the workers speaking the TCP binding's frames
(:mod:`.tcp`), and that worker's answer goes back as it is: one hop, paid only by a connection
that landed on the wrong worker. A run's display token carries the same prefix, and a display
page asked of another worker is fetched from the holder over HTTP on a second Unix socket.
New run is answered wherever it lands, which spreads the runs over the workers as the kernel
spreads the connections.

The same rule carries over to several machines: a load balancer in front needs no knowledge
of runs when clients keep their connections (a layer-4 balancer: HAProxy ``mode tcp`` or
nginx ``stream``, any balancing), and one that routes each request must route on the run ID's
worker part, which travels in the body (HAProxy can: ``option http-buffer-request`` and a
``req.body`` match on ``"world run ID": "w<k>.`` choosing the server; nginx needs njs for it).
Workers on other machines would be named by their TCP binding's address in place of a Unix
socket.

The supervisor (:func:`supervise`) forks the workers after the port is bound, starts again a
worker that dies (with ``--state``, each worker has its own file, ``<name>.w<k><suffix>``, and
a worker started again takes its runs back), and stops them all on SIGTERM or SIGINT.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import socket
import threading
from collections import deque
from collections.abc import Callable
from pathlib import Path

from ..protocol.errors import Refusal
from .dispatch import Dispatcher
from .tcp import HEADER, TcpBinding

log = logging.getLogger("wwm.server")

RESTART_WAIT = 10.0  # seconds a worker waits for another that is being started again


class Workers:
    """What worker ``index`` of ``count`` knows of the others: where each listens (a Unix
    socket in ``folder``), and how to pass a query on to one."""

    def __init__(self, index: int, count: int, folder: str | Path) -> None:
        self.index, self.count, self.folder = index, count, Path(folder)
        self.prefix = f"w{index}."  # the run IDs this worker mints start with it
        self._peers: dict[int, _Peer] = {}
        self._server: asyncio.AbstractServer | None = None
        self.forwarded = 0  # queries passed on to another worker (its card shows it)

    def socket_path(self, index: int) -> str:
        return str(self.folder / f"w{index}.sock")

    def http_path(self, index: int) -> str:
        """Where worker ``index`` also answers HTTP (its runs' display pages, for the others)."""
        return str(self.folder / f"w{index}.http")

    def http_socket(self) -> socket.socket:
        """This worker's own listening Unix socket for :meth:`http_path` (made before it serves)."""
        path = self.http_path(self.index)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.bind(path)
        sock.listen(64)
        return sock

    async def fetch(self, index: int, path: str, accept: str) -> tuple[int, str, bytes]:
        """GET ``path`` from worker ``index`` (a display page of a run it holds): status,
        content type, body; a 503 page when it cannot be reached."""
        import aiohttp

        try:
            async with aiohttp.ClientSession(connector=aiohttp.UnixConnector(path=self.http_path(index))) as session, \
                    session.get(f"http://worker{index}{path}", headers={"Accept": accept}) as reply:
                return reply.status, reply.headers.get("Content-Type", "text/plain"), await reply.read()
        except (aiohttp.ClientError, OSError) as exc:
            return 503, "text/plain", f"worker {index}, which holds this run, cannot be reached ({exc})".encode()

    def state_path(self, path: str | Path | None) -> str | None:
        """This worker's own ``--state`` file (worker 0 keeps the name given)."""
        if path is None or self.index == 0:
            return None if path is None else str(path)
        path = Path(path)
        return str(path.with_name(f"{path.stem}.w{self.index}{path.suffix}"))

    def owner(self, run_id: object) -> int | None:
        """The other worker holding the run ``run_id`` names (None: this one, or none)."""
        if not isinstance(run_id, str):
            return None
        run_id = run_id.strip()
        dot = run_id.find(".")
        if not run_id.startswith("w") or dot < 2 or not run_id[1:dot].isdigit():
            return None
        index = int(run_id[1:dot])
        return index if index != self.index and index < self.count else None

    async def listen(self, dispatcher: Dispatcher, max_body: int) -> None:
        """Take the queries other workers pass on (call inside the worker's event loop)."""
        path = self.socket_path(self.index)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)  # (left by this worker's last life)
        loop = asyncio.get_running_loop()
        self._server = await loop.create_unix_server(lambda: TcpBinding(dispatcher, max_body), path)

    async def forward(self, index: int, raw: bytes) -> bytes:
        """The answer of worker ``index`` to the query ``raw``, as it encoded it. A worker
        that cannot be reached is tried again for up to :data:`RESTART_WAIT` seconds (the
        supervisor is starting it again); a query written to it is never sent twice."""
        self.forwarded += 1
        loop = asyncio.get_running_loop()
        deadline = loop.time() + RESTART_WAIT
        pause = 0.02
        while True:
            peer = self._peers.get(index)
            if peer is None or peer.closed:
                peer = self._peers[index] = _Peer(self.socket_path(index))
            try:
                await peer.open()
            except OSError as exc:
                if loop.time() + pause > deadline:
                    raise Refusal("unreachable", f"worker {index} of this server, which holds the run, "
                                                 f"cannot be reached ({type(exc).__name__})") from None
                await asyncio.sleep(pause)
                pause = min(pause * 2, 0.5)
                continue
            try:
                return await peer.ask(raw)
            except OSError as exc:
                raise Refusal("unreachable", f"worker {index} of this server, which holds the run, "
                                             f"stopped before answering ({type(exc).__name__})") from None

    def close(self) -> None:
        if self._server is not None:
            self._server.close()
        for peer in self._peers.values():
            peer.close()


class _Peer:
    """One connection to another worker: frames written back to back, answers read in order."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.closed = False
        self._opening: asyncio.Task[tuple[asyncio.StreamReader, asyncio.StreamWriter]] | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._reading: asyncio.Task[None] | None = None
        self._waiting: deque[asyncio.Future[bytes]] = deque()

    async def open(self) -> None:
        """Connect, once (concurrent askers wait for the same connection); OSError if not."""
        if self._writer is not None:
            return
        if self._opening is None:
            self._opening = asyncio.get_running_loop().create_task(asyncio.open_unix_connection(self.path))
        try:
            reader, writer = await asyncio.shield(self._opening)
        except OSError:
            self.closed = True
            raise
        if self._writer is None:
            self._writer = writer
            self._reading = asyncio.get_running_loop().create_task(self._read(reader))

    async def ask(self, raw: bytes) -> bytes:
        """The answer to ``raw`` (after :meth:`open`)."""
        if self._writer is None or self.closed:
            raise ConnectionResetError("the connection to the other worker is closed")
        answer: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()
        self._waiting.append(answer)
        self._writer.write(HEADER.pack(len(raw)) + raw)
        return await answer

    async def _read(self, reader: asyncio.StreamReader) -> None:
        error: Exception = ConnectionResetError("the other worker closed the connection")
        try:
            while True:
                (length,) = HEADER.unpack(await reader.readexactly(HEADER.size))
                frame = await reader.readexactly(length)
                if self._waiting:
                    waiter = self._waiting.popleft()
                    if not waiter.done():
                        waiter.set_result(frame)
        except (OSError, asyncio.IncompleteReadError) as exc:
            error = ConnectionResetError(str(exc))
        finally:
            self.close(error)

    def close(self, error: Exception | None = None) -> None:
        self.closed = True
        if self._writer is not None:
            self._writer.close()
        while self._waiting:
            waiter = self._waiting.popleft()
            if not waiter.done():
                waiter.set_exception(error or ConnectionResetError("closed"))


def supervise(count: int, serve_one: Callable[[Workers], None], folder: str | Path,
              on_ready: Callable[[], None] | None = None) -> None:
    """Fork ``count`` workers, each running ``serve_one(Workers(k, count, folder))``; start a
    worker again when it dies; on SIGTERM or SIGINT stop them all and return. Each worker
    stops by itself when this process dies (a pipe it watches ends)."""
    alive, parent_end = os.pipe()
    children: dict[int, int] = {}  # pid -> worker index
    stopping = False

    def start(index: int) -> None:
        pid = os.fork()
        if pid == 0:  # the worker
            code = 0
            try:
                os.close(parent_end)
                signal.signal(signal.SIGINT, signal.default_int_handler)
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                threading.Thread(target=_exit_with_supervisor, args=(alive,), daemon=True,
                                 name="exit with the supervisor").start()
                serve_one(Workers(index, count, folder))
            except BaseException:  # noqa: BLE001 - a worker never returns into the supervisor's code
                log.exception("worker %d stopped", index)
                code = 1
            finally:
                os._exit(code)
        children[pid] = index

    def stop(signum: int, frame: object) -> None:
        nonlocal stopping
        stopping = True
        for pid in list(children):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        for index in range(count):
            start(index)
        if on_ready is not None:
            on_ready()
        while children:
            try:
                pid, status = os.wait()
            except ChildProcessError:
                break
            except InterruptedError:
                continue
            ended = children.pop(pid) if pid in children else None
            if ended is not None and not stopping:
                log.warning("worker %d ended (status %d); starting it again", ended, status)
                start(ended)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        os.close(parent_end)
        os.close(alive)


def _exit_with_supervisor(alive: int) -> None:
    """In a worker: the supervisor holds the other end of ``alive``; when it ends (the
    supervisor died, even by SIGKILL), stop as on SIGTERM."""
    try:
        while os.read(alive, 4096):
            pass
    except OSError:
        pass
    os.kill(os.getpid(), signal.SIGTERM)
