"""No blocking call on the event loop: connecting over TCP by a server's http:// URL reads its
card (which names the TCP binding) without holding the loop, caught by asyncio's debug mode,
whose slow-callback warnings are turned into a failure here."""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from wwm import Refusal
from wwm.client.remote import RemoteWorld

CARD_DELAY = 1.0  # seconds the card takes to come: what a blocking read would hold the loop for
SLOW = 0.4        # a callback that holds the loop this long fails the test


@contextmanager
def slow_card_server() -> Iterator[str]:
    """An HTTP server (in a thread) whose card, naming no TCP binding, comes after CARD_DELAY."""
    gate = threading.Event()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            gate.wait(CARD_DELAY)
            body = json.dumps({"wwm": "1.0", "role": "world", "query_sets": ["World"], "bindings": {}}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        gate.set()
        server.shutdown()
        server.server_close()


@asynccontextmanager
async def loop_must_not_block() -> AsyncIterator[None]:
    """asyncio's debug mode for the block; any callback that holds the loop SLOW seconds or
    more (logged as "Executing ... took ...") fails the test. (The loop measures a callback
    when debug mode was on as it began: the block starts on a fresh step.)"""
    loop = asyncio.get_running_loop()
    slow: list[str] = []

    class Catch(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            text = record.getMessage()
            if text.startswith("Executing") and " took " in text:
                slow.append(text)

    handler = Catch(level=logging.WARNING)
    logger = logging.getLogger("asyncio")
    was_debug, was_slow = loop.get_debug(), loop.slow_callback_duration
    loop.set_debug(True)
    loop.slow_callback_duration = SLOW
    logger.addHandler(handler)
    try:
        await asyncio.sleep(0)
        yield
        await asyncio.sleep(0)
    finally:
        logger.removeHandler(handler)
        loop.set_debug(was_debug)
        loop.slow_callback_duration = was_slow
    if slow:
        pytest.fail("the event loop was blocked: " + "; ".join(slow))


async def test_connecting_over_tcp_by_an_http_url_does_not_block_the_loop():
    with slow_card_server() as url:
        async with loop_must_not_block():
            with pytest.raises(Refusal) as refused:  # its card is read in the loop: it names no TCP binding
                async with RemoteWorld(url, transport="tcp", timeout=10) as world:
                    await world.new_run()
    assert refused.value.code == "unsupported-query"
    assert "offers no TCP binding" in refused.value.text


async def test_the_check_fails_on_a_blocking_call():
    """The guard above can fail: a call that sleeps in the loop is caught."""
    import time

    with pytest.raises(pytest.fail.Exception, match="the event loop was blocked"):
        async with loop_must_not_block():
            time.sleep(SLOW + 0.2)
