"""Any A2A agent as a wwm Mind: :class:`A2AMind` asks the agent for each action with the
``a2a-sdk`` client (``SendMessage``, A2A 1.0 or 0.3, over JSON-RPC or HTTP+JSON, whichever its Agent Card prefers).

It is a Mind like any other, so it goes wherever a Mind goes: a run's top-level mind
(``mind: {class: "wwm.a2a:A2AMind", args: {agent: URL}}`` in a society document), a member of
a local Action Selection mind, or served with ``wwm serve wwm.a2a:A2AMind`` so that a remote
Mind_AS (or any wwm client) reaches the A2A agent through a wwm URL; the agent's URL is then
the ``agent`` argument of each New run (``{url: BRIDGE, args: {agent: URL}}`` as a member), or
the server's default (``--arg agent=URL``).

One wwm run is one A2A context: New run draws a fresh ``contextId`` and every message of the
run carries it, so an agent that keeps a conversation keeps the run. Each step sends the state
as a text part. The action is read from the reply: a data part's ``"action"`` (with ``"q"``,
``"w"``, as a wwm mind served with ``--a2a`` sends), or else the reply's text, so an agent that
merely answers in words is a mind whose actions are its words. A task that failed, was
rejected or cancelled, or stops to ask for input is "cannot suggest action" with the agent's
reason; an agent that cannot be reached or answers nonsense is an error of this mind (the
runner's ``mind_errors`` decide what a run does about it). With ``informs`` each step's outcome
is told to the agent too (Inform it about state), so a learning wwm mind behind ``--a2a`` learns.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from typing import Annotated, Any, ClassVar

import httpx
from a2a.client import A2AClientError, Client, ClientConfig, ClientFactory
from a2a.helpers import get_data_parts, get_text_parts, new_data_part, new_text_part
from a2a.types import Message, Part, Role, SendMessageRequest, StreamResponse, Task, TaskState
from a2a.utils.constants import TransportProtocol
from a2a.utils.errors import A2AError as A2AProtocolError
from pydantic import Field

from ..protocol.interfaces import Mind
from ..protocol.results import Suggestion

log = logging.getLogger("wwm.a2a")

FAILED = {TaskState.TASK_STATE_FAILED: "failed", TaskState.TASK_STATE_REJECTED: "rejected",
          TaskState.TASK_STATE_CANCELED: "was cancelled", TaskState.TASK_STATE_INPUT_REQUIRED: "asks for input",
          TaskState.TASK_STATE_AUTH_REQUIRED: "asks for authentication"}


class A2AError(RuntimeError):
    """The A2A agent could not be reached, or its answer is no answer."""


class A2AMind(Mind):
    """An A2A agent, asked for an action each step: one A2A context per run."""

    seed_section: ClassVar[str] = "(none: a bridge to the A2A protocol, a2a-protocol.org)"
    state_format: ClassVar[str] = "whatever the A2A agent reads (sent as a text part)"
    action_format: ClassVar[str] = "the A2A agent's reply: its data part's action, or its text"
    build_at_start: ClassVar[bool] = False  # its agent is reached at the first run, not at start

    def __init__(
            self,
            agent: Annotated[str, Field(description="The A2A agent's base URL (its Agent Card is at "
                                                    "/.well-known/agent-card.json under it).")],
            timeout: Annotated[float, Field(gt=0, description="Seconds to wait for each reply.")] = 10.0,
            informs: Annotated[bool, Field(description="Also tell the agent what each action did (a data part "
                                                       "{state, score, inform: true}, which a wwm mind served with "
                                                       "--a2a learns from) and when the run ends; off for agents "
                                                       "that would read it as a question.")] = False) -> None:
        if not agent.startswith(("http://", "https://")):
            raise ValueError(f"agent must be an http:// or https:// URL, not {agent!r}")
        self.url = agent  # (what an Action Selection mind names this member by)
        self.timeout = timeout
        self.informs = informs
        self._http: httpx.AsyncClient | None = None
        self._own_http = True
        self._client: Client | None = None
        self._lock = asyncio.Lock()
        self.context_id = uuid.uuid4().hex
        self.steps = 0

    async def new_run(self, client_url: str | None = None, world_display_url: str | None = None,
                      world_run_id: str | None = None) -> None:
        await super().new_run(client_url, world_display_url, world_run_id)
        self.context_id = uuid.uuid4().hex  # a new run: a new conversation
        return None

    def over(self, http: httpx.AsyncClient) -> A2AMind:
        """This mind, reaching its agent through ``http`` (e.g. an in-process ASGI transport),
        which stays its giver's to close."""
        self._http, self._own_http = http, False
        return self

    async def client(self) -> Client:
        """The SDK's client for the agent, made from its Agent Card the first time."""
        async with self._lock:
            if self._client is None:
                if self._http is None:
                    self._http = httpx.AsyncClient(timeout=self.timeout)
                # whichever of the two HTTP bindings the agent's card prefers
                factory = ClientFactory(ClientConfig(
                    streaming=False, httpx_client=self._http,
                    supported_protocol_bindings=[TransportProtocol.JSONRPC, TransportProtocol.HTTP_JSON]))
                try:
                    self._client = await factory.create_from_url(self.url)
                except (A2AClientError, A2AProtocolError, httpx.HTTPError, ValueError) as exc:
                    raise A2AError(f"no A2A agent at {self.url}: {type(exc).__name__}: {exc}") from None
            return self._client

    async def ask(self, parts: list[Part]) -> StreamResponse:
        """The agent's last reply to one message of this run's context."""
        client = await self.client()
        message = Message(role=Role.ROLE_USER, message_id=uuid.uuid4().hex, context_id=self.context_id, parts=parts)
        last: StreamResponse | None = None
        try:
            async for event in client.send_message(SendMessageRequest(message=message)):
                last = event
        except (A2AClientError, A2AProtocolError, httpx.HTTPError) as exc:
            raise A2AError(f"the A2A agent at {self.url} failed: {type(exc).__name__}: {exc}") from None
        if last is None:
            raise A2AError(f"the A2A agent at {self.url} sent no reply")
        return last

    async def get_action(self, state: str) -> Suggestion:
        self.steps += 1
        return read_suggestion(await self.ask([new_text_part(state)]), self.url)

    async def inform(self, state: str, score: float | None = None) -> float | None:
        """What the action did, told to the agent if it ``informs``; its Q, if it answers one."""
        if not self.informs:
            return None
        reply = await self.ask([new_data_part({"state": state, "score": score, "inform": True})])
        said = reply.message.parts if reply.HasField("message") else []
        data = next((d for d in get_data_parts(said) if isinstance(d, dict)), {})
        return _number(data.get("q"))

    async def end_run(self, score: float | None = None) -> float | None:
        """The end of the run; an agent that ``informs`` is told (``{"end": true}``: a wwm mind
        behind ``--a2a`` ends the context's run), and the connection goes."""
        try:
            if self.informs and self._client is not None:
                await self.ask([new_data_part({"end": True})])
        except A2AError as exc:  # the run is over either way
            log.info("%s", exc)
        finally:
            await self.close()
        return None

    async def close(self) -> None:
        """Let the connection go (a client given with :meth:`over` stays open)."""
        self._client = None  # (its transport shares our httpx client: closing that is enough)
        if self._own_http and self._http is not None:
            await self._http.aclose()
            self._http = None


def read_suggestion(reply: StreamResponse, url: str) -> Suggestion:
    """The Suggestion a reply carries (a Message, or a Task in the state it reached)."""
    if reply.HasField("message"):
        return _from_parts(list(reply.message.parts), url)
    if reply.HasField("task"):
        return _from_task(reply.task, url)
    raise A2AError(f"the A2A agent at {url} answered with neither a message nor a task")


def _from_task(task: Task, url: str) -> Suggestion:
    state = task.status.state
    said = list(task.status.message.parts) if task.status.HasField("message") else []
    if state in FAILED:
        data = next((d for d in get_data_parts(said) if isinstance(d, dict)), {})
        reason = data.get("cannot suggest action") if isinstance(data, dict) else None
        text = reason if isinstance(reason, str) and reason else " ".join(get_text_parts(said)).strip()
        return Suggestion.cannot(text or f"the A2A task {FAILED[state]}")
    if state != TaskState.TASK_STATE_COMPLETED:
        raise A2AError(f"the A2A agent at {url} left its task {TaskState.Name(state)}: no action yet")
    parts = [p for artifact in task.artifacts for p in artifact.parts] + said
    return _from_parts(parts, url)


def _from_parts(parts: list[Part], url: str) -> Suggestion:
    for data in get_data_parts(parts):
        if isinstance(data, dict) and "action" in data:
            return Suggestion(str(data["action"]), q=_number(data.get("q")), w=_number(data.get("w")))
        if isinstance(data, dict) and "cannot suggest action" in data:
            return Suggestion.cannot(str(data["cannot suggest action"]) or None)
    text = "\n".join(get_text_parts(parts)).strip()
    if not text:
        raise A2AError(f"the A2A agent at {url} answered without an action (no text, no data part with 'action')")
    return Suggestion(text)


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None
