"""``HttpReranker``: a client for hosted re-rankers that speak the common ``/rerank`` shape.

Request: ``POST url`` with JSON ``{"model", "query", "documents", "top_n"}`` (``model`` only
when given; ``top_n`` is the number of documents, so every document is scored) and, with an API
key, ``Authorization: Bearer <key>``. Response: ``{"results": [{"index", "relevance_score"},
...]}`` in any order. Cohere, Jina, Voyage (``data`` instead of ``results``), vLLM, llama.cpp's
server and Text Embeddings Inference behind a compatible route answer this way. The HTTP client
is httpx (one connection pool per re-ranker, reused across calls), as for the LLM providers;
it comes with the ``client`` or ``llm`` extra.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

import numpy as np
from numpy.typing import NDArray

from hebbs._inputs import invalid
from hebbs.errors import RerankError

from .constants import DEFAULT_HTTP_TIMEOUT_S, HTTP_ERROR_BODY_PREVIEW
from .protocol import check_input, empty_scores

_SCHEMES = ("http", "https")
_RESULT_KEYS = ("results", "data")


class HttpReranker:
    """Re-ranks with a remote ``/rerank`` endpoint; see the module docs for the wire shape.

    ``url`` is the full endpoint (for example ``https://api.example.com/v1/rerank``);
    ``model`` is sent when given; ``api_key`` goes in a bearer ``Authorization`` header;
    ``timeout`` is in seconds. An HTTP error status, a network failure or timeout, and a body
    that is not the expected shape (bad JSON, a missing or repeated index, a non-finite score)
    all raise :class:`~hebbs.errors.RerankError`, with ``status`` set when the server sent one.
    """

    def __init__(
        self,
        url: str,
        model: str | None = None,
        api_key: str | None = None,
        timeout: float = DEFAULT_HTTP_TIMEOUT_S,
    ) -> None:
        if (
            not isinstance(url, str)
            or urlsplit(url).scheme not in _SCHEMES
            or not urlsplit(url).netloc
        ):
            raise invalid("url", f"must be an http(s) URL with a host, got {url!r}")
        if model is not None and (not isinstance(model, str) or not model.strip()):
            raise invalid("model", "must be None or a non-empty str")
        if api_key is not None and (not isinstance(api_key, str) or not api_key):
            raise invalid("api_key", "must be None or a non-empty str")
        if (
            isinstance(timeout, bool)
            or not isinstance(timeout, (int, float))
            or not math.isfinite(timeout)
            or timeout <= 0
        ):
            raise invalid("timeout", f"must be a positive number of seconds, got {timeout!r}")
        try:
            import httpx
        except ImportError as error:  # pragma: no cover - depends on the install
            raise RerankError("HttpReranker needs httpx: pip install 'hebbs[llm]'") from error
        self.url = url
        self.model = model
        self.timeout = float(timeout)
        self._api_key = api_key
        self._httpx = httpx
        self._http = httpx.Client(timeout=self.timeout)

    def __repr__(self) -> str:
        return f"HttpReranker(url={self.url!r}, model={self.model!r}, timeout={self.timeout})"

    def rerank(self, query: str, documents: Sequence[str]) -> NDArray[np.float32]:
        """The service's relevance scores of ``documents`` for ``query``, in input order."""
        query, texts = check_input(query, documents)
        if not texts:
            return empty_scores()
        payload: dict[str, Any] = {"query": query, "documents": texts, "top_n": len(texts)}
        if self.model is not None:
            payload["model"] = self.model
        return _scores(self._post(payload), len(texts))

    def close(self) -> None:
        """Closes the connection pool."""
        self._http.close()

    def _post(self, payload: dict[str, Any]) -> Any:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._api_key is not None:
            headers["Authorization"] = f"Bearer {self._api_key}"
        try:
            response = self._http.post(self.url, json=payload, headers=headers)
        except self._httpx.HTTPError as error:
            raise RerankError(f"{self.url} could not be reached: {error}") from error
        if response.status_code >= 400:
            detail = response.content[:HTTP_ERROR_BODY_PREVIEW].decode("utf-8", "replace")
            raise RerankError(
                f"{self.url} answered HTTP {response.status_code}: {detail}",
                status=response.status_code,
            )
        try:
            return json.loads(response.content)
        except ValueError as error:
            preview = response.content[:HTTP_ERROR_BODY_PREVIEW].decode("utf-8", "replace")
            raise RerankError(f"{self.url} sent a body that is not JSON: {preview!r}") from error


def _scores(body: Any, count: int) -> NDArray[np.float32]:
    """One score per document from ``{"results": [{"index", "relevance_score"}]}``."""
    results = None
    if isinstance(body, dict):
        results = next((body[key] for key in _RESULT_KEYS if key in body), None)
    if not isinstance(results, list):
        raise RerankError(f"the response has no 'results' list: {_preview(body)}")
    scores = np.full(count, np.nan, dtype=np.float64)
    for position, item in enumerate(results):
        index = item.get("index") if isinstance(item, dict) else None
        score = item.get("relevance_score") if isinstance(item, dict) else None
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < count:
            raise RerankError(f"results[{position}] has no valid index in 0..{count - 1}")
        if isinstance(score, bool) or not isinstance(score, (int, float)):
            raise RerankError(f"results[{position}] has no numeric relevance_score")
        if not math.isfinite(score):
            raise RerankError(f"results[{position}] has a non-finite relevance_score")
        if not math.isnan(scores[index]):
            raise RerankError(f"results[{position}] repeats index {index}")
        scores[index] = score
    missing = np.flatnonzero(np.isnan(scores))
    if missing.size:
        raise RerankError(f"the response scored {count - missing.size} of {count} documents")
    return scores.astype(np.float32)


def _preview(body: Any) -> str:
    return json.dumps(body)[:HTTP_ERROR_BODY_PREVIEW]
