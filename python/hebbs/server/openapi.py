"""The failures in the OpenAPI document: each operation declares the statuses it may answer
with besides its success, every one with the body ``ErrorOut`` (``{error_code, message,
field}``, see :mod:`hebbs.service.errors`).

The routes declare what depends on them (:data:`KEYED_ERRORS` on every route that needs a key,
:data:`NOT_FOUND` on those that look an id up, :data:`REVISING` (404 or 409) on those that
revise a memory, :data:`NOT_READY`); :func:`install` adds what
follows from the request's shape: FastAPI documents its own 422 body on every operation that
takes input, but this server answers bad input with 400 ``invalid_input``, so that 422 becomes
a 400, and an operation with a body may also answer 413. :data:`SUBSCRIBE_EVENT` documents the
events of ``POST /v1/subscribe`` (each as ``{event, data, id}``, its ``data`` JSON of the model
of that event) and :func:`install` adds the models those refer to.
"""

from __future__ import annotations

from typing import Any, Final

from fastapi import FastAPI

from hebbs.api.responses import ErrorOut, SubscribePushOut

#: What each failure status means (its ``error_code`` first), as the document describes it.
DESCRIPTIONS: Final = {
    400: "invalid_input: malformed JSON, a wrong type, an unknown field or a value out of range "
    "(field names it)",
    401: "unauthorized: no Authorization: Bearer <key>, or an unknown, revoked or expired key",
    403: "forbidden: the key's scope is too weak for this call",
    404: "not_found: no such memory or tombstone in the caller's tenant",
    409: "conflict: the request contradicts the store's state, e.g. the memory is superseded "
    "by a newer revision or the store holds an imported id already (field names it)",
    413: "payload_too_large: the body is larger than the server's limit",
    429: "rate_limited: the key is over its rate (Retry-After says how many seconds to wait)",
    500: "storage_error, io_error, corruption, index_error or internal_error: the engine failed",
    502: "llm_error: the server's LLM provider failed or kept answering unusable JSON",
    503: "not_ready: the server is starting or shutting down",
}
#: FastAPI's validation error status and the schemas of its body, which this server never sends.
FASTAPI_VALIDATION: Final = ("422", ("HTTPValidationError", "ValidationError"))


def errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The ``responses=`` of a route that may fail with ``statuses``."""
    return {status: {"model": ErrorOut, "description": DESCRIPTIONS[status]} for status in statuses}


#: What every route that needs a key may answer: the key's failures, and the store's.
KEYED_ERRORS: Final = errors(401, 403, 429, 500, 503)
#: A route that looks an id up.
NOT_FOUND: Final = errors(404)
#: A route that revises a memory: the id may not exist (404) or be superseded already (409).
REVISING: Final = errors(404, 409)
#: A route that calls the server's LLM provider.
LLM_FAILURE: Final = errors(502)
#: A route that answers 503 while the server starts or stops.
NOT_READY: Final = errors(503)


def _ref(model: type[Any]) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{model.__name__}"}


def _event(name: str, data: dict[str, Any], *, with_id: bool = False) -> dict[str, Any]:
    """One server-sent event: its name, its ``data`` (JSON of ``data``'s schema), its ``id``."""
    properties: dict[str, Any] = {
        "event": {"const": name},
        "data": {"type": "string", "contentMediaType": "application/json", "contentSchema": data},
    }
    if with_id:
        properties["id"] = {"type": "string", "pattern": "^[0-9]+$"}
    return {
        "type": "object",
        "properties": properties,
        "required": ["event", "data", *(["id"] if with_id else [])],
        "additionalProperties": False,
    }


_SUBSCRIPTION_ID: dict[str, Any] = {
    "type": "object",
    "properties": {"subscription_id": {"type": "integer", "minimum": 0}},
    "required": ["subscription_id"],
    "additionalProperties": False,
}
#: The events of a subscription stream (``text/event-stream``; keep-alive comments are not
#: events): ``subscribed`` first, then ``push`` (``id`` its sequence number), ``end`` last, or
#: ``error`` last (the error body) when the key was revoked or expired while the stream was open.
SUBSCRIBE_EVENT: Final = {
    "oneOf": [
        _event("subscribed", _SUBSCRIPTION_ID),
        _event("push", _ref(SubscribePushOut), with_id=True),
        _event("end", _SUBSCRIPTION_ID),
        _event("error", _ref(ErrorOut)),
    ]
}
#: The models the document refers to without FastAPI knowing (it adds the others).
REFERRED: Final = (ErrorOut, SubscribePushOut)


def stream(media_type: str, event: dict[str, Any]) -> dict[int | str, dict[str, Any]]:
    """The ``responses=`` of a route whose 200 is a stream of ``event``s of ``media_type``."""
    return {200: {"content": {media_type: {"schema": event}}}}


def _error(status: int) -> dict[str, Any]:
    content = {"application/json": {"schema": _ref(ErrorOut)}}
    return {"description": DESCRIPTIONS[status], "content": content}


def complete(document: dict[str, Any]) -> None:
    """Replaces FastAPI's 422 by 400 in ``document``, adds 413 to operations with a body and
    the models of :data:`REFERRED`."""
    status, schemas = FASTAPI_VALIDATION
    for operations in document.get("paths", {}).values():
        for operation in operations.values():
            answers = operation["responses"]
            if answers.pop(status, None) is not None:
                answers.setdefault("400", _error(400))
            if "requestBody" in operation:
                answers.setdefault("413", _error(413))
    components = document.setdefault("components", {}).setdefault("schemas", {})
    for model in REFERRED:
        if model.__name__ not in components:
            found = model.model_json_schema(ref_template="#/components/schemas/{model}")
            components.update(found.pop("$defs", {}))
            components[model.__name__] = found
    for name in schemas:
        components.pop(name, None)


def install(app: FastAPI) -> None:
    """Makes ``app``'s document (``/openapi.json``) :func:`complete`."""
    generate = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            complete(generate())
        assert app.openapi_schema is not None
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
