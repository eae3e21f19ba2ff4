"""Every failure as the server answers it: an HTTP status and the body
``{"error_code": ..., "message": ..., "field": ...}``.

``error_code`` is the snake_case kind of the failure. The caller's mistakes are 4xx
(``invalid_input`` 400 with ``field``, ``unauthorized`` 401, ``forbidden`` 403, ``not_found``
404, ``method_not_allowed`` 405, ``conflict`` 409 with ``field`` (a well-formed request the
store's state refuses: revising a superseded memory, importing an id the store holds),
``payload_too_large`` 413, ``misdirected_request`` 421 (a foreign ``Host`` on a server without
auth: :mod:`hebbs.server.loopback`), ``rate_limited`` 429 with ``Retry-After``);
``not_ready`` (503) is a store that is closing; only the engine's own failures are 500
(``storage_error``, ``io_error``, ``corruption``, ``index_error``, ``internal_error``). Malformed
JSON, wrong types and unknown fields are ``invalid_input`` with the dotted field, never a 5xx.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any, Callable, Final

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from hebbs.api.model import invalid_input
from hebbs.errors import (
    ClosedError,
    ConflictError,
    CorruptionError,
    EmbeddingError,
    HebbsError,
    HebbsIOError,
    InternalError,
    InvalidInputError,
    LLMError,
    NotFoundError,
    StorageError,
    TextIndexError,
    VectorIndexError,
)

LOG = logging.getLogger("hebbs.server")

#: The field named by an error in the request body as a whole (malformed JSON, no body).
BODY_FIELD: Final = "body"

#: Engine errors that are not the caller's fault: (status, error_code), checked in order.
ENGINE_ERRORS: Final[tuple[tuple[type[HebbsError], int, str], ...]] = (
    (InvalidInputError, 400, "invalid_input"),
    (NotFoundError, 404, "not_found"),
    (ConflictError, 409, "conflict"),
    (ClosedError, 503, "not_ready"),
    (StorageError, 500, "storage_error"),
    (HebbsIOError, 500, "io_error"),
    (CorruptionError, 500, "corruption"),
    (VectorIndexError, 500, "index_error"),
    (TextIndexError, 500, "index_error"),
    (EmbeddingError, 500, "internal_error"),
    (LLMError, 502, "llm_error"),
    (InternalError, 500, "internal_error"),
)
#: The statuses whose answer names the field at fault (an input error, a conflict).
FIELD_STATUSES: Final = frozenset({400, 409})
#: error_code of the HTTP statuses the framework itself raises (unknown path, wrong method).
HTTP_CODES: Final = {
    400: "invalid_input",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "payload_too_large",
    429: "rate_limited",
    503: "not_ready",
}


class ApiError(Exception):
    """A failure the server answers with ``status`` and ``error_code`` (and ``headers``)."""

    def __init__(
        self,
        status: int,
        error_code: str,
        message: str,
        *,
        field: str | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.error_code = error_code
        self.message = message
        self.field = field
        self.headers = dict(headers or {})


def unauthorized(message: str) -> ApiError:
    return ApiError(401, "unauthorized", message, headers={"WWW-Authenticate": "Bearer"})


def forbidden(message: str) -> ApiError:
    return ApiError(403, "forbidden", message)


def rate_limited(retry_after_s: int) -> ApiError:
    return ApiError(
        429,
        "rate_limited",
        f"too many requests for this key: retry after {retry_after_s} s",
        headers={"Retry-After": str(retry_after_s)},
    )


def payload_too_large(limit: int) -> ApiError:
    return ApiError(413, "payload_too_large", f"the request body is larger than {limit} bytes")


def not_ready(message: str, retry_after_s: int | None = None) -> ApiError:
    """The 503 of a request to retry (after ``retry_after_s``, sent as ``Retry-After``)."""
    headers = None if retry_after_s is None else {"Retry-After": str(retry_after_s)}
    return ApiError(503, "not_ready", message, headers=headers)


def error_body(error_code: str, message: str, field: str | None = None) -> dict[str, Any]:
    return {"error_code": error_code, "message": message, "field": field}


def error_response(error: ApiError) -> JSONResponse:
    return JSONResponse(
        error_body(error.error_code, error.message, error.field),
        status_code=error.status,
        headers=error.headers,
    )


def from_engine(error: HebbsError) -> ApiError:
    """The answer to an engine error; an input error or a conflict keeps its ``field``."""
    for kind, status, code in ENGINE_ERRORS:
        if isinstance(error, kind):
            field = getattr(error, "field", None) if status in FIELD_STATUSES else None
            return ApiError(status, code, str(error), field=field or None)
    return ApiError(500, "internal_error", str(error))


def from_validation(errors: Sequence[Any]) -> ApiError:
    """The answer to FastAPI's validation of a body, path or query: the first problem as an
    ``invalid_input`` naming its field the way the embedded API does (``body`` for a body that
    is not JSON or not an object)."""
    detail = dict(errors[0])
    loc = [part for part in detail.get("loc", ()) if part != BODY_FIELD]
    if detail.get("type") == "json_invalid" or not any(isinstance(p, str) for p in loc):
        reason = "is not a JSON object" if detail.get("type") != "missing" else "is required"
        if detail.get("type") == "json_invalid":
            reason = f"is not valid JSON ({detail.get('ctx', {}).get('error', 'malformed')})"
        elif detail.get("type") == "model_attributes_type":
            reason = "must be a JSON object"
        return ApiError(400, "invalid_input", f"invalid body: {reason}", field=BODY_FIELD)
    if loc and loc[0] in ("path", "query", "header"):
        loc = loc[1:]
    if detail.get("type") == "extra_forbidden":
        field = _dotted(loc)
        return ApiError(400, "invalid_input", f"invalid {field}: unknown field", field=field)
    detail["loc"] = tuple(loc)
    detail.setdefault("msg", "is invalid")
    detail.setdefault("type", "value_error")
    error = invalid_input(detail)  # type: ignore[arg-type]
    return ApiError(400, "invalid_input", str(error), field=error.field)


def _dotted(loc: Sequence[Any]) -> str:
    field = ""
    for part in loc:
        field += f"[{part}]" if isinstance(part, int) else (f".{part}" if field else str(part))
    return field


def install(app: FastAPI, check_key: Callable[[Request], None] | None = None) -> None:
    """Registers the handlers that give every failure the shape above. ``check_key`` raises
    the :class:`ApiError` of a request without the key its route needs: a body FastAPI could
    not read (a 400 raised before the route's dependencies ran) is answered with that first."""

    def key_error(request: Request) -> JSONResponse | None:
        if check_key is None:
            return None
        try:
            check_key(request)
        except ApiError as error:
            return error_response(error)
        return None

    async def on_api_error(request: Request, error: Exception) -> JSONResponse:
        assert isinstance(error, ApiError)
        return error_response(error)

    async def on_hebbs_error(request: Request, error: Exception) -> JSONResponse:
        assert isinstance(error, HebbsError)
        answer = from_engine(error)
        if answer.status >= 500:
            LOG.error("engine failure on %s %s: %s", request.method, request.url.path, error)
        return error_response(answer)

    async def on_validation(request: Request, error: Exception) -> JSONResponse:
        assert isinstance(error, RequestValidationError)
        return key_error(request) or error_response(from_validation(error.errors()))

    async def on_http(request: Request, error: Exception) -> JSONResponse:
        assert isinstance(error, StarletteHTTPException)
        refused = key_error(request) if error.status_code == 400 else None
        if refused is not None:
            return refused
        code = HTTP_CODES.get(error.status_code, "internal_error")
        return error_response(
            ApiError(error.status_code, code, str(error.detail), headers=error.headers)
        )

    async def on_unexpected(request: Request, error: Exception) -> JSONResponse:
        LOG.exception("unexpected failure on %s %s", request.method, request.url.path)
        return error_response(ApiError(500, "internal_error", "internal error"))

    app.add_exception_handler(ApiError, on_api_error)
    app.add_exception_handler(HebbsError, on_hebbs_error)
    app.add_exception_handler(RequestValidationError, on_validation)
    app.add_exception_handler(StarletteHTTPException, on_http)
    app.add_exception_handler(Exception, on_unexpected)
