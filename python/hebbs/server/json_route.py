"""The routes' JSON codec: request bodies parsed and answers written by :mod:`hebbs.jsonwire`
(orjson) instead of the standard ``json`` that FastAPI and Starlette use.

:class:`JsonRoute` is the ``route_class`` of the routers: it hands each endpoint a
:class:`JsonRequest`, whose ``json()`` FastAPI calls to read a body, so the body is validated
by the same request models, the same way, only parsed faster. :func:`json_response` is the
answer of every handler.
"""

from __future__ import annotations

from collections.abc import Coroutine
from typing import Any, Callable

from fastapi import Request, Response
from fastapi.routing import APIRoute

from hebbs.jsonwire import JSON_MEDIA_TYPE, dumps, loads

Handler = Callable[[Request], Coroutine[Any, Any, Response]]


class JsonRequest(Request):
    """A request whose JSON body is parsed by orjson (once; later calls return it again)."""

    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            self._json = loads(await self.body())
        return self._json


class JsonRoute(APIRoute):
    """A FastAPI route that reads its body as a :class:`JsonRequest`."""

    def get_route_handler(self) -> Handler:
        handler = super().get_route_handler()

        async def handle(request: Request) -> Response:
            return await handler(JsonRequest(request.scope, request.receive))

        return handle


def json_response(payload: Any, status: int = 200) -> Response:
    """The JSON answer ``payload`` with HTTP ``status``."""
    return Response(dumps(payload), status_code=status, media_type=JSON_MEDIA_TYPE)
