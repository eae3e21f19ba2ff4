"""hebbs as an MCP server (the Model Context Protocol, with the official ``mcp`` SDK): the
tools of :mod:`hebbs.mcp.tools` over stdio (``hebbs mcp``, :mod:`hebbs.mcp.stdio`) or mounted
in ``hebbs serve`` at ``/mcp`` as the streamable-HTTP transport (:mod:`hebbs.mcp.http`)."""
