"""What the HTTP providers share: one ``httpx.Client`` per provider, a concurrency limit,
retries with backoff on 429 / 5xx / timeouts that honour ``Retry-After``, and the structured
answer: the model's text parsed as JSON and validated against the task's pydantic schema, with
one repair request (the error shown to the model) before a typed
:class:`~hebbs.errors.LLMError`.

httpx is the HTTP client (the server and the remote client use it too) rather than the two
vendor SDKs: one dependency, one retry policy, and local OpenAI-compatible servers (Ollama,
vLLM, llama.cpp) work with the same code. The API key goes in a header only; it is never in a
log record, a ``repr`` or an error message.
"""

from __future__ import annotations

import email.utils
import json
import logging
import math
import random
import threading
import time
from abc import ABC, abstractmethod
from datetime import datetime, timezone
from typing import Any

from pydantic import ValidationError

from hebbs._inputs import invalid
from hebbs.errors import LLMError

from .constants import (
    DEFAULT_LLM_BACKOFF_S,
    DEFAULT_LLM_CONCURRENCY,
    DEFAULT_LLM_MAX_RETRIES,
    DEFAULT_LLM_MAX_TOKENS,
    DEFAULT_LLM_TEMPERATURE,
    DEFAULT_LLM_TIMEOUT_S,
    LLM_ERROR_PREVIEW,
    MAX_LLM_BACKOFF_S,
)
from .protocol import LLMTask, T

log = logging.getLogger("hebbs.llm")

#: Statuses worth another attempt: rate limited, or the server's own failure.
_RETRY_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 529})

Messages = list[dict[str, str]]


def _positive(value: object, field: str, *, allow_zero: bool = False) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not math.isfinite(value)
        or value < 0
        or (value == 0 and not allow_zero)
    ):
        raise invalid(field, f"must be a {'non-negative' if allow_zero else 'positive'} number")
    return float(value)


def _count(value: object, field: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise invalid(field, f"must be an int >= {minimum}")
    return value


class HttpProvider(ABC):
    """The base of :class:`~hebbs.llm.OpenAIProvider` and :class:`~hebbs.llm.AnthropicProvider`:
    each says how its API's request body, answer and headers look."""

    name = "http"
    path = ""

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key: str | None = None,
        timeout: float = DEFAULT_LLM_TIMEOUT_S,
        max_retries: int = DEFAULT_LLM_MAX_RETRIES,
        backoff: float = DEFAULT_LLM_BACKOFF_S,
        concurrency: int = DEFAULT_LLM_CONCURRENCY,
        max_tokens: int = DEFAULT_LLM_MAX_TOKENS,
        temperature: float = DEFAULT_LLM_TEMPERATURE,
    ) -> None:
        try:
            import httpx
        except ImportError as error:  # pragma: no cover - depends on the install
            raise LLMError(
                "the HTTP providers need httpx: pip install 'hebbs[llm]'", provider=self.name
            ) from error
        if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
            raise invalid("base_url", f"must be an http(s) URL, got {base_url!r}")
        if not isinstance(model, str) or not model.strip():
            raise invalid("model", "must be a non-empty str")
        if api_key is not None and (not isinstance(api_key, str) or not api_key):
            raise invalid("api_key", "must be None or a non-empty str")
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.timeout = _positive(timeout, "timeout")
        self.max_retries = _count(max_retries, "max_retries", 0)
        self.backoff = _positive(backoff, "backoff", allow_zero=True)
        self.concurrency = _count(concurrency, "concurrency", 1)
        self.max_tokens = _count(max_tokens, "max_tokens", 1)
        self.temperature = _positive(temperature, "temperature", allow_zero=True)
        self._api_key = api_key
        self._slots = threading.BoundedSemaphore(self.concurrency)
        self._lock = threading.Lock()
        self._calls = 0
        self._http = httpx.Client(timeout=self.timeout)
        self._httpx = httpx

    def __repr__(self) -> str:
        return f"{type(self).__name__}(base_url={self.base_url!r}, model={self.model!r})"

    @property
    def calls(self) -> int:
        """Requests sent so far, retries and repairs included."""
        return self._calls

    def close(self) -> None:
        """Closes the connection pool."""
        self._http.close()

    def complete(self, task: LLMTask, schema: type[T]) -> T:
        """The model's answer to ``task`` as a ``schema`` instance: one repair request when the
        first answer is not valid JSON for the schema, then :class:`LLMError`."""
        system = (
            f"{task.system}\n\nAnswer with one JSON object and nothing else. Its JSON schema:\n"
            f"{json.dumps(schema.model_json_schema())}"
        )
        messages: Messages = [{"role": "user", "content": task.prompt}]
        text = self._ask(system, messages)
        try:
            return _validated(text, schema)
        except (ValueError, ValidationError) as problem:
            log.info("%s answered %s with unusable JSON; asking once to repair", self, task.name)
            messages += [
                {"role": "assistant", "content": text},
                {
                    "role": "user",
                    "content": f"That answer is not valid: {_reason(problem)}. Reply with the "
                    "corrected JSON object only.",
                },
            ]
        repaired = self._ask(system, messages)
        try:
            return _validated(repaired, schema)
        except (ValueError, ValidationError) as problem:
            raise LLMError(
                f"{self.name} answered {task.name} with unusable JSON twice: {_reason(problem)}; "
                f"answer: {repaired[:LLM_ERROR_PREVIEW]!r}",
                provider=self.name,
            ) from None

    def _ask(self, system: str, messages: Messages) -> str:
        body = self._post(self.path, self.request_body(system, messages))
        try:
            return self.answer_text(body)
        except (KeyError, IndexError, TypeError) as error:
            raise LLMError(
                f"{self.name} sent a response of an unknown shape ({error!r}): "
                f"{json.dumps(body)[:LLM_ERROR_PREVIEW]}",
                provider=self.name,
            ) from None

    @abstractmethod
    def request_body(self, system: str, messages: Messages) -> dict[str, Any]:
        """The JSON body that asks the API for ``messages`` under ``system``."""

    @abstractmethod
    def answer_text(self, body: Any) -> str:
        """The answer's text in the API's response ``body``."""

    @abstractmethod
    def headers(self) -> dict[str, str]:
        """The API's request headers (its key among them)."""

    def _post(self, path: str, payload: dict[str, Any]) -> Any:
        url = f"{self.base_url}{path}"
        httpx = self._httpx
        attempt = 0
        while True:
            wait: float | None = None
            status: int | None = None
            with self._slots:
                with self._lock:
                    self._calls += 1
                try:
                    response = self._http.post(url, json=payload, headers=self.headers())
                except httpx.TimeoutException:
                    problem = f"timed out after {self.timeout:g} s"
                except httpx.TransportError as error:
                    problem = f"could not be reached ({type(error).__name__})"
                else:
                    status = response.status_code
                    if status < 400:
                        try:
                            return response.json()
                        except ValueError:
                            raise LLMError(
                                f"{url} sent a body that is not JSON: "
                                f"{response.text[:LLM_ERROR_PREVIEW]!r}",
                                provider=self.name,
                                status=status,
                            ) from None
                    problem = f"answered HTTP {status}: {response.text[:LLM_ERROR_PREVIEW]}"
                    if status not in _RETRY_STATUSES:
                        raise LLMError(f"{url} {problem}", provider=self.name, status=status)
                    wait = retry_after(response.headers.get("retry-after"))
            if attempt >= self.max_retries:
                raise LLMError(
                    f"{url} {problem} (after {attempt + 1} attempts)",
                    provider=self.name,
                    status=status,
                )
            if wait is None:
                wait = self.backoff * (2**attempt) * (1 + random.random() / 4)
            wait = min(wait, MAX_LLM_BACKOFF_S)
            log.warning("%s %s; retry %d in %.2f s", url, problem, attempt + 1, wait)
            time.sleep(wait)
            attempt += 1


def retry_after(value: str | None) -> float | None:
    """Seconds a ``Retry-After`` header asks to wait (a number or an HTTP date), or None."""
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=timezone.utc)
        seconds = (when - datetime.now(timezone.utc)).total_seconds()
    if not math.isfinite(seconds):
        return None
    return max(0.0, seconds)


def _validated(text: str, schema: type[T]) -> T:
    """``schema`` validated from the JSON object in ``text`` (code fences and prose around the
    object are tolerated)."""
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end < start:
        raise ValueError("no JSON object in the answer")
    value = json.loads(text[start : end + 1])
    return schema.model_validate(value)


def _reason(problem: Exception) -> str:
    if isinstance(problem, ValidationError):
        first = problem.errors(include_url=False)[0]
        where = ".".join(str(part) for part in first["loc"]) or "(root)"
        return f"{where}: {first['msg']} ({problem.error_count()} problem(s))"
    return str(problem)
