"""The server's error answers as the exceptions the embedded API raises.

The server answers a failed request with ``{"error_code", "message", "field"}``;
:data:`ERROR_CLASSES` is the one table from ``error_code`` to the exception class (the same
class :class:`hebbs.Hebbs` raises for the same failure). A code the table does not know (a newer
server) falls back on the HTTP status (:data:`STATUS_CLASSES`). A connection that fails or times
out is a :class:`~hebbs.errors.ServerUnavailableError`. An input error and a conflict (409) keep
the ``field`` the server named and the ``reason`` of its message.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hebbs._inputs import conflict, invalid
from hebbs.errors import (
    AuthError,
    ClosedError,
    ConflictError,
    CorruptionError,
    HebbsError,
    HebbsIOError,
    InternalError,
    InvalidInputError,
    InvalidTypeError,
    InvalidValueError,
    LLMError,
    NotFoundError,
    RateLimitedError,
    ServerUnavailableError,
    StorageError,
    TextIndexError,
    VectorIndexError,
)

#: ``error_code`` → the exception class raised for it.
ERROR_CLASSES: dict[str, type[HebbsError]] = {
    "invalid_input": InvalidValueError,
    "invalid_type": InvalidTypeError,
    "payload_too_large": InvalidValueError,
    "not_found": NotFoundError,
    "conflict": ConflictError,
    "unauthorized": AuthError,
    "forbidden": AuthError,
    "rate_limited": RateLimitedError,
    "storage_error": StorageError,
    "io_error": HebbsIOError,
    "corruption": CorruptionError,
    "index_error": VectorIndexError,
    "text_index_error": TextIndexError,
    "closed": ClosedError,
    "internal_error": InternalError,
    "llm_error": LLMError,
    "not_ready": ServerUnavailableError,
    # A cluster's shard that no longer owns the key's tenant, after the client's retries.
    "moved": ServerUnavailableError,
}

#: HTTP status → the class for an answer without a known ``error_code``.
STATUS_CLASSES: dict[int, type[HebbsError]] = {
    400: InvalidValueError,
    401: AuthError,
    403: AuthError,
    404: NotFoundError,
    409: ConflictError,
    413: InvalidValueError,
    422: InvalidValueError,
    429: RateLimitedError,
    502: ServerUnavailableError,
    503: ServerUnavailableError,
    504: ServerUnavailableError,
}

#: The field an input error names when the server does not say which (a too-large body).
BODY_FIELD = "body"


def error_from_response(
    status: int, body: object, headers: Mapping[str, str] | None = None
) -> HebbsError:
    """The exception for an error answer with HTTP ``status`` and JSON ``body``."""
    data: Mapping[str, Any] = body if isinstance(body, Mapping) else {}
    code = data.get("error_code")
    message = str(data.get("message") or f"the server answered HTTP {status}")
    fallback = InternalError if status >= 500 else HebbsError
    error_class = ERROR_CLASSES.get(code) if isinstance(code, str) else None
    if error_class is None:
        error_class = STATUS_CLASSES.get(status, fallback)
    if issubclass(error_class, ConflictError):
        return conflict(*_field_and_reason(data, message, "conflict on"))
    if issubclass(error_class, InvalidInputError):
        return invalid(*_field_and_reason(data, message, "invalid"), error_class)
    if error_class is RateLimitedError:
        return RateLimitedError(message, retry_after=_retry_after(data, headers))
    if error_class is AuthError:
        return AuthError(message, status=status)
    if error_class is LLMError:
        return LLMError(message, provider="server", status=status)
    return error_class(message)


def _field_and_reason(data: Mapping[str, Any], message: str, word: str) -> tuple[str, str]:
    """The field an error answer names and its reason: ``message`` without the
    ``"<word> <field>: "`` the engine puts before it."""
    field = data.get("field")
    field = field if isinstance(field, str) and field else BODY_FIELD
    prefix = f"{word} {field}: "
    return field, message[len(prefix) :] if message.startswith(prefix) else message


def _retry_after(data: Mapping[str, Any], headers: Mapping[str, str] | None) -> float | None:
    """Seconds to wait: the body's ``retry_after``, else the ``Retry-After`` header (seconds)."""
    candidates = [data.get("retry_after"), (headers or {}).get("retry-after")]
    for value in candidates:
        if value is None or isinstance(value, bool):
            continue
        try:
            return float(value)
        except (TypeError, ValueError):
            continue
    return None


def unavailable(url: str, error: Exception) -> ServerUnavailableError:
    """The exception for a request to ``url`` that got no answer."""
    return ServerUnavailableError(f"hebbs server at {url} unavailable: {error}")
