"""Reading an HTTP answer as a :class:`~hebbs.client.operations.Call`'s result or its error,
and the signature each generated client method shows (the embedded method's)."""

from __future__ import annotations

import inspect
import json
from collections.abc import Mapping
from typing import Any, Callable, TypeVar

from hebbs.client.errors import error_from_response
from hebbs.client.operations import Call
from hebbs.errors import ServerUnavailableError
from hebbs.jsonwire import JSON_MEDIA_TYPE, dumps, loads

R = TypeVar("R")
F = TypeVar("F", bound=Callable[..., Any])

#: The HTTP status that means "no such thing".
NOT_FOUND = 404
#: The first HTTP status of an error answer.
FIRST_ERROR_STATUS = 400


def body_arguments(call: Call[Any]) -> dict[str, Any]:
    """The httpx arguments that send ``call``'s JSON body (none without one)."""
    if call.body is None:
        return {}
    return {"content": dumps(call.body), "headers": {"content-type": JSON_MEDIA_TYPE}}


def decode_json(content: bytes) -> Any:
    """The JSON value of a body (None when empty)."""
    if not content:
        return None
    try:
        return loads(content)
    except json.JSONDecodeError as error:
        raise ServerUnavailableError(
            f"the server answered with a body that is not JSON: {error}"
        ) from None


def finish(call: Call[R], status: int, content: bytes, headers: Mapping[str, str]) -> R:
    """The result of ``call`` from its answer, or the mapped error."""
    if status == NOT_FOUND and call.none_if_not_found:
        return call.decode(None)
    data = decode_json(content) if content else None
    if status >= FIRST_ERROR_STATUS:
        raise error_from_response(status, data, headers)
    return call.decode(data)


def remote_method(method: F, operation: Callable[..., Any], returns: str | None = None) -> F:
    """``method`` named and documented as ``operation``, showing its signature with the return
    type of the result (``Call[R]`` shows as ``R``; ``returns`` replaces it)."""
    signature = inspect.signature(operation)
    annotation = signature.return_annotation
    if returns is not None:
        annotation = returns
    elif isinstance(annotation, str) and annotation.startswith("Call[") and annotation[-1] == "]":
        annotation = annotation[len("Call[") : -1]
    method.__name__ = operation.__name__
    method.__qualname__ = operation.__name__
    method.__doc__ = operation.__doc__
    method.__signature__ = signature.replace(return_annotation=annotation)  # type: ignore[attr-defined]
    return method
