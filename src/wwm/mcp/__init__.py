"""``wwm mcp URL``: a World-Wide-Mind server's queries as Model Context Protocol tools, so an
LLM agent (any MCP client) can act as a client of any World or Mind.

- :mod:`.tools`: the tools of a server, from its card and the query tables (one per query it
  answers), and how a tool call becomes a query and an answer becomes a tool result;
- :mod:`.bridge`: the MCP server (the official Python SDK, ``mcp``) over stdio that holds the
  runs the agent started and forwards each call to the WWM server;
- :mod:`.command`: the command line.

The SDK is an optional extra: ``pip install 'world-wide-mind[mcp]'``.
"""
