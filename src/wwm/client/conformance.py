"""A conformance check for any World or Mind server, in any language: does it describe
itself, start runs with unguessable IDs, answer each query of its role in the documented
shape, end runs, refuse bad input with the right codes, and understand the seed's own words
(:mod:`.seed_words`)? ``wwm check URL`` runs it.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from ..protocol import jsoncodec, xmlcodec
from ..protocol.errors import Refusal
from ..protocol.messages import Query, Response
from ..protocol.results import Outcome, Suggestion
from .bindings import open_transport
from .cards import fetch_card
from .remote import RemoteMind, RemoteWorld
from .seed_words import seed_word_checks
from .statuses import NotListening
from .transport import HttpTransport

#: runs one named check: ``await step(name, body)``, True if it passed
Step = Callable[[str, Callable[[], Awaitable[str]]], Awaitable[bool]]


@dataclass
class Check:
    name: str
    passed: bool
    detail: str
    seconds: float
    refusal: Refusal | None = None  # what failed it, when a refusal did


FALLBACK_STATE = "x"  # sent to a mind when neither the user, a World nor its card gives a state


async def check_server(url: str, *, state: str | None = None, action: str | None = None,
                       world: str | None = None, encoding: str = "json", timeout: float = 5.0) -> list[Check]:
    """Check the server at ``url``. A mind is sent ``state``, else states of a run in the
    World at ``world`` (its actions executed there), else the example on its card, else
    :data:`FALLBACK_STATE`."""
    checks: list[Check] = []

    async def step(name: str, body: Callable[[], Awaitable[str]]) -> bool:
        started = time.perf_counter()
        try:
            detail = await body()
            checks.append(Check(name, True, detail, time.perf_counter() - started))
            return True
        except Refusal as refusal:
            checks.append(Check(name, False, f"{refusal.code}: {refusal.text}", time.perf_counter() - started,
                                refusal))
            return False
        except (AssertionError, ValueError, TypeError, OSError, TimeoutError) as exc:
            checks.append(Check(name, False, f"{type(exc).__name__}: {exc}", time.perf_counter() - started))
            return False

    card: dict[str, Any] = {}

    async def describe() -> str:
        card.update(await fetch_card(url))
        assert card.get("role") in ("world", "mind"), f"role is {card.get('role')!r}"
        assert isinstance(card.get("query_sets"), list), "no query_sets list"
        return f"{card['role']} server, query sets {', '.join(card['query_sets'])}"

    if not await step("describes itself (GET, JSON card)", describe):
        if isinstance(checks[-1].refusal, NotListening):
            return checks  # nothing to check: the command says so in one line
        # A server without a card (a hand-written CGI, say) may still answer queries as a mind.
        card["role"] = "mind"
    remote: RemoteWorld | RemoteMind
    if card["role"] == "world":
        remote = RemoteWorld(url, encoding=encoding, timeout=timeout, client_url="urn:wwm:check")
    else:
        remote = RemoteMind(url, encoding=encoding, timeout=timeout, client_url="urn:wwm:check")

    async def new_run() -> str:
        started = await remote.new_run()
        assert remote.run_id, "no run ID"
        detail = f"run ID of {len(remote.run_id)} characters"
        if len(remote.run_id) < 16:
            detail += " (short: a guessable run ID lets other clients into this run)"
        return detail + (f"; display URL {started.display_url}" if started.display_url else "")

    if not await step("New run", new_run):
        await remote.aclose()
        return checks
    await step("No operation", lambda: _confirm(remote.no_operation()))
    await step("Get display URL", lambda: _text(remote.get_display_url(), optional=True))
    example = card.get("state_example")
    given = state if state is not None else example if isinstance(example, str) and example else None
    if isinstance(remote, RemoteWorld):
        await _world_checks(remote, step, action)
    elif world is not None and state is None:
        await _mind_in_world(remote, step, world, encoding, timeout)
    else:
        await _mind_checks(remote, step, given if given is not None else FALLBACK_STATE, guessed=given is None)
    run_id = remote.run_id
    if run_id:
        await seed_word_checks(url, card["role"], card.get("query_sets", []), run_id, step,
                               state=given if given is not None else FALLBACK_STATE, timeout=timeout)

    async def pipelined() -> str:
        first, second = await remote.query_in_order(("no_operation", {}), ("get_current_score", {}),
                                                    within=timeout)
        for name, reply in (("No operation", first), ("Get current score", second)):
            if isinstance(reply, Refusal):
                raise AssertionError(f"{name}, written right behind another query, got {reply.code}: {reply.text} "
                                     "(HTTP/1.1 servers must answer pipelined requests in order; "
                                     "wwm run notices and asks one query at a time)")
        return "both answered, in order (wwm run sends Inform and the next Get action this way)"

    if remote.pipelines:
        await step("two queries written together are answered in order", pipelined)

    async def end() -> str:
        score = await remote.end_run()
        return f"score {score}" if score is not None else "confirmed"

    await step("End run", end)

    async def after_end() -> str:
        remote.run_id = run_id
        try:
            await remote.no_operation()
        except Refusal as refusal:
            assert refusal.code == "run-ended", (f"refused with {refusal.code}; a run its client ended is "
                                                 "refused run-ended (docs/protocol.md)")
            return f"refused: {refusal.code}"
        raise AssertionError("a query after End run was answered as if the run went on")

    await step("a query after End run is refused", after_end)
    await _bad_input(url, card["role"], step, timeout)
    remote.run_id = None
    await remote.aclose()
    return checks


async def _world_checks(world: RemoteWorld, step: Step, action: str | None) -> None:
    states: list[str] = []

    async def get_state() -> str:
        states.append(await world.get_state())
        return _short(states[-1])

    await step("Get state", get_state)
    if action is not None:
        async def execute() -> str:
            outcome = await world.execute_action(action)
            assert isinstance(outcome, Outcome) and isinstance(outcome.state, str)
            return f"y = {_short(outcome.state)}, score {outcome.score}"

        await step(f"Execute action {action!r}", execute)
    await step("Get current score", lambda: _text(world.get_current_score(), optional=True))
    await step("Reset score", lambda: _confirm(world.reset_score()))

    async def reset() -> str:
        try:
            await world.reset()
        except Refusal as refusal:
            assert refusal.code == "unsupported-query", f"refused with {refusal.code}"
            return "not supported (refused as unsupported-query)"
        return "confirmed"

    await step("Reset", reset)


async def _mind_checks(mind: RemoteMind, step: Step, state: str, *, guessed: bool = False) -> None:
    """The Mind's queries, sent ``state``; ``guessed``: a state no one gave (a failure then
    says how to give one)."""
    hint = (f" (the check sent the state {state!r}, which this mind may not read: give one it reads with "
            f"--state, or a World to ask for states with --world URL)") if guessed else ""

    async def hinted(answer: Awaitable[str]) -> str:
        try:
            return await answer
        except Refusal as refusal:
            raise Refusal(refusal.code, refusal.text + hint) from None

    await step("Ready to suggest action?", lambda: hinted(_text(mind.ready_to_suggest(state))))
    await step(f"Get action for x = {_short(state)}", lambda: hinted(_suggested(mind, state)))
    await step("Inform it about state", lambda: hinted(_text(mind.inform(state, 1.0), optional=True)))
    await step("Get current score", lambda: _text(mind.get_current_score(), optional=True))
    await step("Reset score", lambda: _confirm(mind.reset_score()))


async def _suggested(mind: RemoteMind, state: str) -> str:
    suggestion = await mind.get_action(state)
    assert isinstance(suggestion, Suggestion)
    if not suggestion.can_suggest:
        return "Cannot suggest action" + (f" ({suggestion.reason})" if suggestion.reason else "")
    return f"a = {_short(suggestion.action or suggestion.mind_url or '')}" + (
        f", Q = {suggestion.q}" if suggestion.q is not None else "")


async def _mind_in_world(mind: RemoteMind, step: Step, world_url: str, encoding: str, timeout: float) -> None:
    """The Mind's queries with the states of a run in a real World: x from Get state, the
    mind's action executed there, the outcome given back by Inform, for a few steps."""
    world = RemoteWorld(world_url, encoding=encoding, timeout=timeout, client_url="urn:wwm:check")
    refused: Refusal | None = None
    try:
        await world.new_run()
    except Refusal as refusal:
        refused = refusal
    if refused is not None:
        await step(f"New run in the World at {world_url}", lambda: _raise(refused))
        return
    try:
        first = await world.get_state()
        await step(f"Ready to suggest action? (x from {world_url})", lambda: _text(mind.ready_to_suggest(first)))

        async def steps() -> str:
            said: list[str] = []
            for _ in range(WORLD_STEPS):
                x = await world.get_state()
                suggestion = await mind.get_action(x)
                assert isinstance(suggestion, Suggestion)
                if not suggestion.can_suggest or suggestion.action is None:
                    said.append("Cannot suggest action")
                    continue
                outcome = await world.execute_action(suggestion.action)
                await mind.inform(outcome.state, outcome.score)
                said.append(suggestion.action)
            return f"{WORLD_STEPS} steps in the World's states: {', '.join(_short(a) for a in said)}"

        await step(f"Get action and Inform with states of {world_url}", steps)
        await step("Get current score", lambda: _text(mind.get_current_score(), optional=True))
        await step("Reset score", lambda: _confirm(mind.reset_score()))
    finally:
        try:
            await world.end_run()
        except Refusal:
            pass
        await world.aclose()


WORLD_STEPS = 5  # steps of a real run a mind is checked on (wwm check --world)


async def _raise(refusal: Refusal | None) -> str:
    assert refusal is not None
    raise refusal


async def _bad_input(url: str, role: str, step: Step, timeout: float) -> None:
    transport = open_transport(url, timeout=timeout)  # (in process, where the server is hosted)
    run_field = f"{role} run ID"

    async def refused(query: Query, code: str) -> str:
        try:
            await transport.exchange(query)
        except Refusal as refusal:
            assert refusal.code == code, f"refused with {refusal.code}, expected {code}"
            return f"{code}: {refusal.text}"
        raise AssertionError(f"answered instead of refusing with {code}")

    await step("unknown run ID is refused",
               lambda: refused(Query("No operation", {run_field: "no-such-run-0000"}), "unknown-run"))
    await step("unknown query is refused", lambda: refused(Query("Make coffee", {}), "unknown-query"))

    async def malformed() -> str:
        assert isinstance(transport, HttpTransport)
        reply = await transport.post_raw(b"<xml><query name='Get state'>")
        status, body = reply.status, reply.body
        message = xmlcodec.decode(body) if body.lstrip().startswith(b"<") else jsoncodec.decode(body)
        assert isinstance(message, Response), "answered with a query"
        assert message.refusal is not None and message.refusal.code == "malformed-message", \
            f"answered {message.refusal.code if message.refusal else 'without a refusal'}"
        return f"malformed-message (HTTP {status})"

    if isinstance(transport, HttpTransport):
        await step("malformed XML is refused", malformed)
    await transport.close()


async def _confirm(call: Awaitable[Any]) -> str:
    await call
    return "confirmed"


async def _text(call: Awaitable[Any], optional: bool = False) -> str:
    value = await call
    if value is None:
        assert optional, "no value returned"
        return "none (optional)"
    return _short(str(value))


def _short(text: str, limit: int = 60) -> str:
    text = text.replace("\n", " ")
    return text if len(text) <= limit else text[: limit - 3] + "..."
