"""The ``hebbs`` command line: ``remember``, ``recall``, ``get``, ``list``, ``revise``,
``forget``, ``health``, ``prime``, ``chat-context``, ``orphans``, ``reflect``, ``insights``,
``reflect-prepare``, ``reflect-commit``, ``contradictions``, ``confirm-contradiction``,
``index``, ``demo``, ``serve``, ``ui``, ``keys``, ``mcp``, ``export``, ``import`` and
``cluster`` (``cluster serve|add-shard|shards``: a sharded cluster on Ray, docs/cluster.md).

Installed as the ``hebbs`` console script (``hebbs.cli:main``); run ``hebbs --help``. Every
command takes ``--db PATH`` (default ``$HEBBS_DB``, else ``./hebbs-data``) and ``--json``;
every data command also takes ``--url URL`` and ``--api-key KEY`` (defaults ``$HEBBS_URL``
and ``$HEBBS_API_KEY``) to run on a hebbs server instead (see docs/client.md). ``serve`` runs
the REST server over ``--db`` and ``keys create|list|revoke`` manages its API keys (see
docs/server.md); ``ui`` opens the memory explorer over the one store ``--db`` in the browser
(docs/explorer.md); ``mcp`` serves the memory tools to an MCP host on stdin/stdout (see
docs/integrations.md); ``export`` writes the store to stdout as JSON Lines and ``import``
loads one (or a Chroma collection). Exit codes: 0 success, 1 not found or engine error, 2 bad
input, 3 API key refused, 4 server unreachable, 130 interrupted.
"""

from __future__ import annotations

from hebbs.cli.runner import main

__all__ = ["main"]
