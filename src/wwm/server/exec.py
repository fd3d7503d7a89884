"""Transports to a program in any language that reads one query on stdin and writes one
response on stdout, in the XML of section 11.2.1 (each ending with the line ``</xml>``).

:class:`PerQueryTransport` (11.4.1, plain CGI): one process per query; the program saves its
state to disk between queries (its working directory is the server's state directory) and
keys it by the run ID it minted in its own New run response. :class:`PersistentTransport`
(11.4.2, "persistent CGI"): one process per run, started by New run, fed the run's queries
one after another, ended after End run and killed if its run is dropped.

A :class:`~wwm.client.remote.RemoteMind` / ``RemoteWorld`` over one of these transports is the
object a ``wwm serve-exec`` server makes per run: the server answers its clients under its
own secret run ID and the remote object speaks to the program under the program's run ID,
so the mapping between the two is the run table's entry for that object. A program that
cannot be started, crashes, hangs, prints garbage or too much gives a refusal that says so
(``unreachable``, ``server-error``, ``timeout``, ``run-ended``), never a hang.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import signal
import weakref
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..protocol import xmlcodec
from ..protocol.errors import Refusal
from ..protocol.messages import Query, Response
from ..protocol.transport import OneAtATime

MAX_OUTPUT = 1 << 20      # bytes a program may print in answer to one query
STDERR_TAIL = 2000        # characters of a program's error output kept for refusal texts
END_GRACE = 2.0           # seconds a persistent program has to exit after End run


class ExecTransport(OneAtATime):
    """What both modes share: the command, its working directory, time-outs, and turning a
    program's output into a :class:`Response` or a refusal that names the program."""

    def __init__(self, command: Sequence[str], *, workdir: str | Path | None = None,
                 timeout: float = 10.0, max_output: int = MAX_OUTPUT,
                 env: dict[str, str] | None = None) -> None:
        if not command:
            raise ValueError("no command given: say which program serves the queries")
        if timeout <= 0:
            raise ValueError(f"timeout must be positive, got {timeout}")
        self.command = [str(c) for c in command]
        self.workdir = Path(workdir) if workdir else Path.cwd()
        self.timeout = timeout
        self.max_output = max_output
        self.env = {**os.environ, **(env or {})}
        self.url = "exec:" + shlex.join(self.command)
        self.name = Path(self.command[0]).name

    async def _start(self) -> _Program:
        try:
            process = await asyncio.create_subprocess_exec(
                *self.command, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE, cwd=self.workdir, env=self.env,
                start_new_session=True, limit=self.max_output)
        except OSError as exc:
            raise Refusal("unreachable", f"cannot start {self.name}: {exc.strerror or exc}") from None
        return _Program(process)

    async def close(self) -> None:
        """Nothing is left running between queries; :class:`PersistentTransport` ends its program."""

    def _decode(self, query: Query, text: str, program: _Program) -> Response:
        if not text.strip():
            exited = program.exit_note()
            raise Refusal("server-error", f"{self.name} answered {query.name!r} with nothing"
                                          f"{'; it ' + exited if exited else ''}{program.stderr_note()}")
        try:
            message = xmlcodec.decode(text.encode())
        except Refusal as refusal:
            raise Refusal("server-error", f"{self.name} printed something that is not a response to "
                                          f"{query.name!r} ({refusal.text}); it began: {_show(text)}"
                                          f"{program.stderr_note()}") from None
        if not isinstance(message, Response):
            raise Refusal("server-error", f"{self.name} printed a query, not a response to {query.name!r}")
        if message.name.strip().lower() != query.name.lower():
            raise Refusal("server-error", f"{self.name} answered {message.name!r} to the query {query.name!r}")
        if message.refusal is not None:
            raise message.refusal
        return message


class PerQueryTransport(ExecTransport):
    """One process per query (section 11.4.1): start, write the query, read the response."""

    def __init__(self, command: Sequence[str], **options: Any) -> None:
        super().__init__(command, **options)
        self._lock = asyncio.Lock()

    async def exchange(self, query: Query) -> Response:
        async with self._lock:
            program = await self._start()
            try:
                try:
                    async with asyncio.timeout(self.timeout):
                        await program.send(xmlcodec.encode(query), close=True)
                        reply = await program.read_response(self.max_output)
                except TimeoutError:
                    raise Refusal("timeout", f"{self.name} did not answer {query.name!r} within "
                                             f"{self.timeout:g} s; it was stopped") from None
                # it answered: give it the rest of its time to save its state and exit
                await program.wait(self.timeout)
                await program.settle()
                return self._decode(query, reply.text, program)
            finally:
                await program.finish()


class PersistentTransport(ExecTransport):
    """One process per run (section 11.4.2), started at New run and ended after End run.

    A query not answered in time is owed: before the next query is written, its late answer
    is read and thrown away; a program that still does not answer is stopped, and its run is
    over. A run dropped by the server (its object garbage-collected) kills the program."""

    def __init__(self, command: Sequence[str], **options: Any) -> None:
        super().__init__(command, **options)
        self._lock = asyncio.Lock()
        self._program: _Program | None = None
        self._owed = 0          # late answers still to be read and thrown away
        self._ended: str | None = None

    @property
    def pid(self) -> int | None:
        return self._program.process.pid if self._program is not None else None

    async def exchange(self, query: Query) -> Response:
        async with self._lock:
            if self._program is None:
                if self._ended is not None:
                    raise Refusal("run-ended", self._ended)
                if query.name != "New run":
                    raise Refusal("unknown-run", f"{self.name} has no run in progress: send New run first")
                self._program = await self._start()
                weakref.finalize(self, self._program.kill)
            program = self._program
            try:
                async with asyncio.timeout(self.timeout):
                    while self._owed:
                        if not (await program.read_response(self.max_output)).complete:
                            break
                        self._owed -= 1
                    await program.send(xmlcodec.encode(query))
                    reply = await program.read_response(self.max_output)
            except TimeoutError:
                if self._owed:
                    await self._stop(f"{self.name} never answered an earlier query and was stopped")
                    raise Refusal("timeout", f"{self.name} still has not answered an earlier query "
                                             f"after {self.timeout:g} s more; it was stopped") from None
                self._owed += 1
                raise Refusal("timeout", f"{self.name} did not answer {query.name!r} within "
                                         f"{self.timeout:g} s") from None
            except (BrokenPipeError, ConnectionResetError):
                reply = Reply("", complete=False, eof=True)
            except Refusal as refusal:   # it printed too much
                await self._stop(f"{self.name} was stopped: {refusal.text}")
                raise
            if reply.eof:
                await program.wait(0.5)
                await program.settle()
                note = f"{self.name} {program.exit_note() or 'closed its output'}"
                await self._stop(note + " during the run; start a new run")
                raise Refusal("server-error", f"{note} without answering {query.name!r}"
                                              f"{program.stderr_note()}")
            if not reply.complete:   # out of step with the program: this run cannot go on
                await self._stop(f"{self.name} printed garbage and was stopped; start a new run")
            try:
                return self._decode(query, reply.text, program)
            finally:
                if query.name == "End run" and self._program is program:
                    await self._finish(program)

    def lost(self, reason: str) -> None:
        """Mark the run's program as gone (e.g. the server restarted): queries get ``run-ended``."""
        if self._program is not None:
            self._program.kill()
            self._program = None
        self._ended = reason

    async def _finish(self, program: _Program) -> None:
        await program.close_input()
        await program.wait(END_GRACE)
        await self._stop("this run has ended; start a new run")

    async def _stop(self, reason: str) -> None:
        program, self._program = self._program, None
        self._ended = reason
        if program is not None:
            await program.finish()

    async def close(self) -> None:
        if self._program is not None:
            await self._stop("the transport was closed")


@dataclass(frozen=True, slots=True)
class Reply:
    """What a program printed for one query: ``complete`` when it ended with ``</xml>``;
    ``eof`` when its output ended first."""

    text: str
    complete: bool
    eof: bool = False


class _Program:
    """One running process of a program: write to it, read one response from it, collect
    the tail of its error output, and kill it together with any children it started."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.stderr: deque[str] = deque(maxlen=64)
        assert process.stderr is not None
        self._drain = asyncio.ensure_future(self._collect(process.stderr))

    async def _collect(self, stream: asyncio.StreamReader) -> None:
        try:
            while chunk := await stream.read(4096):
                self.stderr.append(chunk.decode(errors="replace"))
        except (asyncio.CancelledError, OSError):
            pass

    async def send(self, payload: bytes, close: bool = False) -> None:
        stdin = self.process.stdin
        assert stdin is not None
        try:
            stdin.write(payload)
            await stdin.drain()
            if close:
                stdin.close()
        except (BrokenPipeError, ConnectionResetError):
            if not close:
                raise  # a persistent program that died; the caller reports it

    async def close_input(self) -> None:
        if self.process.stdin is not None and not self.process.stdin.is_closing():
            self.process.stdin.close()

    async def read_response(self, cap: int) -> Reply:
        """The lines up to and including ``</xml>``; stops early at the end of the output, or
        when the first line printed is plainly not XML (so garbage does not wait for a
        time-out)."""
        stdout = self.process.stdout
        assert stdout is not None
        lines: list[str] = []
        size = 0
        while True:
            try:
                line = await stdout.readline()
            except (ValueError, asyncio.LimitOverrunError):
                raise Refusal("server-error", f"the program printed a line longer than {cap} bytes") from None
            if not line:
                return Reply("".join(lines), complete=False, eof=True)
            size += len(line)
            if size > cap:
                raise Refusal("server-error", f"the program printed more than {cap} bytes for one response")
            text = line.decode(errors="replace")
            lines.append(text)
            if text.strip() == "</xml>":
                return Reply("".join(lines), complete=True)
            if text.strip() and not "".join(lines).lstrip().startswith("<"):
                return Reply("".join(lines), complete=False)

    async def wait(self, seconds: float) -> int | None:
        """Wait for the program to exit, throwing away anything more it prints meanwhile (a
        pipe left full would pause, and its end would never be noticed); None on time-out."""
        stdout = self.process.stdout
        try:
            async with asyncio.timeout(seconds):
                while stdout is not None and await stdout.read(65536):
                    pass
                return await self.process.wait()
        except (TimeoutError, OSError, ValueError):
            return self.process.returncode

    async def settle(self, seconds: float = 0.5) -> None:
        """Let the error output of a program that has exited be collected."""
        try:
            await asyncio.wait_for(asyncio.shield(self._drain), seconds)
        except TimeoutError:
            pass

    def exit_note(self) -> str:
        """How the program ended ("exited with status 3", "was killed by SIGSEGV"), or ""."""
        code = self.process.returncode
        if code is None:
            return ""
        if code < 0:
            try:
                return f"was killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"was killed by signal {-code}"
        return f"exited with status {code}"

    def stderr_note(self) -> str:
        tail = "".join(self.stderr).strip()
        return f"; its error output ends: {tail[-STDERR_TAIL:]!r}" if tail else ""

    async def finish(self) -> None:
        """Kill the program if it still runs and wait until its pipes are closed, so nothing
        is left behind for the event loop to clean up later."""
        self.kill()
        await self.wait(2.0)
        await asyncio.sleep(0)  # let the subprocess transport see its pipes close

    def kill(self) -> None:
        """Kill the program and its children (it runs in its own session); safe to repeat,
        and safe from a finalizer after the event loop has gone."""
        if self.process.returncode is None:
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        try:
            self._drain.cancel()
        except RuntimeError:  # the loop is closed
            pass


def _show(text: str, limit: int = 80) -> str:
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= limit else flat[: limit - 3] + "...")
