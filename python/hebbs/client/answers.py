"""Reading an HTTP answer as a :class:`~hebbs.client.operations.Call`'s result or its error."""

from __future__ import annotations

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
