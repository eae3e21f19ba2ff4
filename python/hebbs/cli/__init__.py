"""The ``hebbs`` command line: ``remember``, ``recall``, ``get``, ``list``, ``revise``,
``forget``, ``health``, ``prime``, ``chat-context``, ``orphans``, ``demo``, ``serve`` and
``keys``.

Installed as the ``hebbs`` console script (``hebbs.cli:main``); run ``hebbs --help``. Every
command takes ``--db PATH`` (default ``$HEBBS_DB``, else ``./hebbs-data``) and ``--json``.
``serve`` runs the REST server over ``--db`` and ``keys create|list|revoke`` manages its API
keys (see docs/server.md). Exit codes: 0 success, 1 not found or engine error, 2 bad input.
"""

from __future__ import annotations

from hebbs.cli.runner import main

__all__ = ["main"]
