"""A local ``/rerank`` service for the HTTP re-ranker row of the LoCoMo table.

No hosted re-ranker is reachable offline, so ``--serve-rerank`` starts this one in the eval's
own process: a standard-library HTTP server on 127.0.0.1 (a free port) that answers the common
``/rerank`` shape (``{"query", "documents", "top_n"}`` in, ``{"results": [{"index",
"relevance_score"}]}`` out) with any hebbs re-ranker behind it. The row then measures the
:class:`~hebbs.rerank.HttpReranker` client end to end over real HTTP: its scores must equal
those of the re-ranker it wraps, and its time includes the JSON round trips.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from hebbs.rerank import Reranker


def _handler(reranker: Reranker) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body: dict[str, Any] = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            scores = reranker.rerank(body["query"], body["documents"])
            results = [
                {"index": index, "relevance_score": float(score)}
                for index, score in enumerate(scores)
            ]
            reply = json.dumps({"results": results}).encode("utf-8")
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

        def log_message(self, format: str, *args: Any) -> None:
            return

    return Handler


@contextmanager
def serve(reranker: Reranker) -> Iterator[str]:
    """Serves ``reranker`` at ``http://127.0.0.1:<free port>/rerank`` while the block runs;
    yields that URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(reranker))
    thread = threading.Thread(target=server.serve_forever, name="locomo-rerank-service")
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/rerank"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
