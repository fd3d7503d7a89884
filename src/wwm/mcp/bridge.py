"""The MCP server of ``wwm mcp URL``: the WWM server's queries as tools (:mod:`.tools`), over
stdio, with the official Python SDK's low-level server. Each tool call sends its query to the
WWM server and answers with the response's items (as JSON text and as structured content);
a refusal comes back as a tool error naming its code and text, so the agent can read it and
correct itself. The bridge keeps the run ID of the last ``new_run``, which later calls use
unless they give ``run_id``."""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from ..client.bindings import open_transport
from ..client.cards import fetch_card
from ..protocol import queries as Q
from ..protocol.errors import Refusal
from ..protocol.messages import Query
from .tools import QueryTool, query_data, tools_of


class Bridge:
    """The tools of one WWM server and the runs started through them."""

    def __init__(self, url: str, card: dict[str, Any], *, timeout: float = 30.0) -> None:
        self.url = url
        self.card = card
        self.tools = {tool.name: tool for tool in tools_of(card)}
        self.transport = open_transport(url, timeout=timeout)
        self.run_id: str | None = None

    @classmethod
    async def connect(cls, url: str, *, timeout: float = 30.0) -> Bridge:
        """The bridge to the server at ``url`` (its card says its role and queries)."""
        return cls(url, await fetch_card(url), timeout=timeout)

    def listed(self) -> list[types.Tool]:
        return [types.Tool(name=t.name, title=t.spec.name, description=t.description, input_schema=t.input_schema)
                for t in self.tools.values()]

    async def call(self, name: str, arguments: dict[str, Any] | None) -> types.CallToolResult:
        tool = self.tools.get(name)
        if tool is None:
            return _error(f"no tool {name!r}; this server's tools: {', '.join(self.tools)}")
        try:
            data = await self._ask(tool, arguments or {})
        except Refusal as refusal:
            return _error(f"refused ({refusal.code}): {refusal.text}")
        except ValueError as exc:
            return _error(str(exc))
        return types.CallToolResult(content=[types.TextContent(text=json.dumps(data, ensure_ascii=False))],
                                    structured_content=data)

    async def _ask(self, tool: QueryTool, arguments: dict[str, Any]) -> dict[str, Q.Wire]:
        response = await self.transport.exchange(Query(tool.spec.name, query_data(tool, arguments, self.run_id)))
        data = dict(response.data)
        if tool.spec.method == "new_run":
            run_id = data.get(tool.spec.run_id_field)
            if isinstance(run_id, str):
                self.run_id = run_id
        return data

    async def close(self) -> None:
        await self.transport.close()


def _error(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=text)], is_error=True)


def server_for(bridge: Bridge) -> Server[Any]:
    """The MCP server whose tools are ``bridge``'s."""

    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=bridge.listed())

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        return await bridge.call(params.name, params.arguments)

    name = bridge.card.get("name", "wwm")
    return Server(f"wwm {bridge.card.get('role')} {name}", version=Q.PROTOCOL_VERSION,
                  instructions=f"Tools that query the World-Wide-Mind {bridge.card.get('role')} server "
                               f"{name} at {bridge.url}: start with new_run, then query the run it started.",
                  on_list_tools=list_tools, on_call_tool=call_tool)


async def serve_stdio(url: str, *, timeout: float = 30.0) -> None:
    """Serve the tools of the WWM server at ``url`` on stdin/stdout until the client leaves."""
    bridge = await Bridge.connect(url, timeout=timeout)
    server = server_for(bridge)
    try:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())
    finally:
        await bridge.close()
