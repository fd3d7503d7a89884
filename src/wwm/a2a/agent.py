"""A wwm Mind server that is also an A2A agent (A2A 1.0, JSON-RPC binding, ``a2a-sdk``).

An A2A client finds the agent by its Agent Card at ``/.well-known/agent-card.json`` and sends
it ``SendMessage`` at ``/a2a`` (a 0.3 client its ``message/send``, through the SDK's
compatibility layer: the card names both versions). Each message carries a state: a data part ``{"state": ...}``,
or else the text of its text parts. The mind's answer is the reply: a ``Message`` whose text
part is the action and whose data part is ``{"action", "q", "w", "run"}``. A mind that cannot
suggest an action answers a ``Task`` in ``TASK_STATE_FAILED`` whose status message says so
(with the data part ``{"cannot suggest action": reason}``): a failure the client can read,
never an empty action, since "cannot suggest" is not the action "do nothing" (9.2).

The A2A context is the wwm run. The first message of a ``contextId`` starts a run (New run)
on the very run table the wwm bindings use, so it is listed, displayed and expired as any
other run; later messages of that context are Get action queries of that run. A data part
``{"state": S, "score": X, "inform": true}`` is "Inform it about state" instead (a learning
mind hears what its action did), answered with a data part ``{"q": ...}``, and
``{"end": true}`` ends the context's run. A run that expired while the context was quiet is
started again on the next message (the mind's memory of it is gone: the reply says
``"new run": true``). At most ``max_contexts`` contexts are remembered; the oldest is ended
beyond that, so memory stays bounded.

Queries go through :meth:`Dispatcher.answer`, so access rules, the credit trail and the
refusals are the wwm bindings' own; a refusal becomes an A2A error (``InvalidParamsError``
for the client's mistakes, ``InternalError`` for the mind's own failure).
"""

from __future__ import annotations

import asyncio
import collections
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from a2a.helpers import get_data_parts, get_text_parts, new_data_part, new_message, new_task, new_text_part
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types import AgentCapabilities, AgentCard, AgentInterface, AgentSkill, Message, Part, Role, TaskState
from a2a.utils.constants import PROTOCOL_VERSION_CURRENT, TransportProtocol
from a2a.utils.errors import InternalError, InvalidParamsError
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response as HTTPResponse
from starlette.routing import BaseRoute, Route

from ..protocol.messages import Query, Response
from ..server import pages
from ..server.app import MAX_BODY
from ..server.dispatch import Dispatcher

log = logging.getLogger("wwm.a2a")

RPC_PATH = "/a2a"
LOST = ("unknown-run", "run-ended")  # the context's run is gone from the run table
CLIENT_MISTAKES = ("bad-parameters", "malformed-message", "too-large", "state-invalid")


def agent_card(dispatcher: Dispatcher) -> AgentCard:
    """The Agent Card of a Mind server: its name and description from its wwm card, one
    JSON-RPC interface at ``<url>/a2a``, one skill (suggest an action for a state)."""
    info = pages.card(dispatcher)
    base = dispatcher.url.rstrip("/")
    state, action = info["state_format"], info["action_format"]
    example = info.get("state_example")
    return AgentCard(
        name=str(info["name"]),
        description=str(info["summary"] or f"the wwm mind {info['class']}"),
        version=str(info["wwm"]),
        documentation_url=f"{base}/",
        # 1.0 first (preferred); 0.3 on the same endpoint, for the clients still on it (the SDK's
        # compatibility layer: method names such as message/send, "kind" members)
        supported_interfaces=[AgentInterface(url=base + RPC_PATH, protocol_binding=TransportProtocol.JSONRPC,
                                             protocol_version=v) for v in (PROTOCOL_VERSION_CURRENT, "0.3")],
        capabilities=AgentCapabilities(streaming=False, push_notifications=False),
        default_input_modes=["text/plain", "application/json"],
        default_output_modes=["text/plain", "application/json"],
        skills=[AgentSkill(
            id="get-action", name="Suggest an action",
            description=(f"Send a state ({state}) as text, or as data {{\"state\": ...}}; the reply is the "
                         f"action ({action}) as text and as data {{\"action\", \"q\"}}. One contextId is one "
                         "run: the mind may remember earlier states of it."),
            tags=["wwm", "mind", "action-selection"],
            examples=[str(example)] if example else [])],
    )


class MindExecutor(AgentExecutor):
    """Answers each A2A message with a query of the served Mind, one wwm run per context."""

    def __init__(self, dispatcher: Dispatcher, max_contexts: int | None = None) -> None:
        self.dispatcher = dispatcher
        self.max_contexts = max_contexts or dispatcher.runs.max_runs
        self.contexts: collections.OrderedDict[str, str] = collections.OrderedDict()  # contextId -> run ID
        self.run_field = f"{dispatcher.role} run ID"
        self._starting = asyncio.Lock()

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        message = context.message
        if message is None:
            raise InvalidParamsError("SendMessage needs a message carrying a state")
        ask = _read(message)
        context_id = context.context_id or message.context_id
        if ask.get("end"):
            score = await self._end(context_id)
            await event_queue.enqueue_event(_reply(context_id, "run ended", {"ended": True, "score": score}))
            return
        if "state" not in ask:
            raise InvalidParamsError('a message to a wwm mind carries the state: a text part, or a data part '
                                     '{"state": ...}')
        inform = bool(ask.get("inform"))
        items: dict[str, Any] = {"state": ask["state"]}
        if inform and ask.get("score") is not None:
            items["score"] = ask["score"]
        name = "Inform it about state" if inform else "Get action"
        response, fresh = await self._ask(context_id, name, items)
        if response.refusal is not None:
            r = response.refusal
            error = InvalidParamsError if r.code in CLIENT_MISTAKES else InternalError
            raise error(f"{name} refused ({r.code}): {r.text}")
        data = response.data
        extra = {"run": self.contexts.get(context_id), **({"new run": True} if fresh else {})}
        if inform:
            await event_queue.enqueue_event(_reply(context_id, "informed", {"q": _number(data.get("Q")), **extra}))
            return
        action = data.get("action")
        if action is None:  # "cannot suggest action" (or a mind URL to ask instead: 9.2.2)
            reason = str(data.get("cannot suggest action") or "")
            if data.get("mind URL"):
                reason = reason or f"ask the mind at {data['mind URL']}"
            await self._failed(context, event_queue, reason, data)
            return
        await event_queue.enqueue_event(_reply(context_id, str(action), {
            "action": str(action), "q": _number(data.get("Q")), "w": _number(data.get("W")), **extra}))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        from a2a.utils.errors import UnsupportedOperationError

        raise UnsupportedOperationError("a mind's answer is one message: nothing is left to cancel")

    async def _ask(self, context_id: str, name: str, items: dict[str, Any]) -> tuple[Response, bool]:
        """The answer to query ``name`` in the context's run (started if it has none, or
        started again once if it was lost), and whether a run was started for it."""
        fresh = False
        async with self._starting:  # two first messages of one context at once: one run
            run_id = self.contexts.get(context_id)
            if run_id is None:
                run_id, fresh = await self._new_run(context_id), True
        if context_id in self.contexts:  # (a quiet context may have gone meanwhile)
            self.contexts.move_to_end(context_id)
        response = await self.dispatcher.answer(Query(name, {self.run_field: run_id, **items}))
        if response.refusal is not None and response.refusal.code in LOST and not fresh:
            run_id, fresh = await self._new_run(context_id), True
            response = await self.dispatcher.answer(Query(name, {self.run_field: run_id, **items}))
        return response, fresh

    async def _new_run(self, context_id: str) -> str:
        started = await self.dispatcher.answer(Query("New run", {}))
        if started.refusal is not None:
            raise InternalError(f"the mind would not start a run ({started.refusal.code}): {started.refusal.text}")
        run_id = str(started.data[self.run_field])
        self.contexts[context_id] = run_id
        while len(self.contexts) > self.max_contexts:  # the quietest context goes, and its run
            _, old = self.contexts.popitem(last=False)
            await self.dispatcher.answer(Query("End run", {self.run_field: old}))
        return run_id

    async def _end(self, context_id: str) -> float | None:
        run_id = self.contexts.pop(context_id, None)
        if run_id is None:
            return None
        ended = await self.dispatcher.answer(Query("End run", {self.run_field: run_id}))
        return _number(ended.data.get("score")) if ended.refusal is None else None

    async def _failed(self, context: RequestContext, event_queue: EventQueue, reason: str,
                      data: dict[str, Any]) -> None:
        """A task that failed at once: the mind cannot suggest an action in this state."""
        assert context.message is not None
        task = context.current_task or new_task(context.task_id or "", context.context_id or "",
                                                TaskState.TASK_STATE_SUBMITTED, history=[context.message])
        await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)
        text = "cannot suggest action" + (f": {reason}" if reason else "")
        await updater.failed(updater.new_agent_message(
            [new_text_part(text), new_data_part({"cannot suggest action": reason,
                                                 **({"mind URL": data["mind URL"]} if data.get("mind URL") else {})})]))


def _read(message: Message) -> dict[str, Any]:
    """What a message asks: the first data part that is a mapping, else ``{"state": text}``
    (the text parts joined by new lines), else nothing."""
    for data in get_data_parts(message.parts):
        if isinstance(data, dict):
            out = dict(data)
            if "state" in out and not isinstance(out["state"], str):
                import json

                out["state"] = json.dumps(out["state"])  # a structured state: sent as its JSON text
            return out
    texts = get_text_parts(message.parts)
    return {"state": "\n".join(texts)} if texts else {}


def _reply(context_id: str, text: str, data: dict[str, Any]) -> Message:
    parts: list[Part] = [new_text_part(text), new_data_part({k: v for k, v in data.items() if v is not None})]
    return new_message(parts, context_id=context_id, role=Role.ROLE_AGENT)


def _number(value: Any) -> float | None:
    try:
        return None if value is None else float(value)
    except (TypeError, ValueError):
        return None


def a2a_routes(dispatcher: Dispatcher, max_body: int = MAX_BODY) -> list[BaseRoute]:
    """The routes that make a served Mind an A2A agent: its card at the well-known path and
    the JSON-RPC endpoint at ``/a2a`` (what ``wwm serve NAME --a2a`` adds), which reads at
    most ``max_body`` bytes of a request, as the wwm bindings do."""
    if dispatcher.role != "mind":
        raise ValueError(f"only a mind is an A2A agent here; this server is a {dispatcher.role}")
    card = agent_card(dispatcher)
    handler = DefaultRequestHandler(agent_executor=MindExecutor(dispatcher), task_store=InMemoryTaskStore(),
                                    agent_card=card)
    routes = create_jsonrpc_routes(handler, rpc_url=RPC_PATH, enable_v0_3_compat=True)
    rpc = [Route(r.path, _bounded(r.endpoint, max_body), methods=sorted(r.methods or ["POST"]))
           if isinstance(r, Route) else r for r in routes]
    return [*create_agent_card_routes(card, cache_control="no-cache"), *rpc]


def _bounded(endpoint: Callable[[Request], Awaitable[HTTPResponse]],
             max_body: int) -> Callable[[Request], Awaitable[HTTPResponse]]:
    """``endpoint`` reading at most ``max_body`` bytes: a longer body (declared or sent) is
    the 413 the SDK answers as the JSON-RPC error "Payload too large", before it is all read
    (the SDK itself reads a body whole, however long)."""
    async def guarded(request: Request) -> HTTPResponse:
        declared = request.headers.get("content-length", "")
        size = int(declared) if declared.isdigit() else 0

        async def receive() -> Any:
            nonlocal size
            if size > max_body:
                raise HTTPException(413, f"the message is over {max_body} bytes")
            event = await request.receive()
            if not declared:
                size += len(event.get("body", b""))
                if size > max_body:
                    raise HTTPException(413, f"the message is over {max_body} bytes")
            return event

        return await endpoint(Request(request.scope, receive))

    return guarded
