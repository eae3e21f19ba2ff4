"""The MCP streamable-HTTP transport inside ``hebbs serve``, at :data:`MCP_PATH`.

Every HTTP request to it is authenticated like a REST call (``Authorization: Bearer <key>``,
a ``read`` key at least; 401/403/429 as JSON before MCP sees it), and each tool call, resource
read, prompt and completion runs on the store of the tenant of the key that sent *that* request,
after checking the key's scope covers it (``write`` for remember, revise and forget, ``read``
for the rest): a session id never carries a tenant, so no key reaches another tenant's store
through one. ``recall`` with ``include_organization`` also
answers from the caller's organization, as REST's does (:mod:`hebbs.service.organization`). The
transport is stateless (no MCP session kept between requests) and answers JSON; it opens no
event stream (``GET`` is 405, as the specification allows), so a revoked or expired key ends its
sessions at their next request. Without auth (loopback only) the server's loopback check
(:mod:`hebbs.server.loopback`, in front of every route) refuses a foreign Host or Origin before
the transport sees it, so a web page cannot reach the key-less store through a rebound name.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Final

from fastapi import FastAPI
from mcp.server import ServerRequestContext
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.requests import Request
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from hebbs.mcp.access import Operation, StoreSource
from hebbs.mcp.server import build_server
from hebbs.service.auth import Caller, authenticate
from hebbs.service.errors import ApiError, error_response, forbidden, unauthorized
from hebbs.service.organization import CallerStore
from hebbs.service.tenants import TenantStores

#: Where ``hebbs serve`` mounts the transport.
MCP_PATH: Final = "/mcp"
#: The scope a key needs to reach the transport at all.
CONNECT_SCOPE: Final = "read"
#: Why ``GET`` (the specification's optional stream of server-initiated messages) is 405: a
#: stateless server sends none, and a stream would outlive the check of its key.
NO_STREAM: Final = "this server opens no MCP event stream: POST each JSON-RPC message"
#: The methods the transport answers.
ALLOW: Final = {"Allow": "POST, DELETE"}


class McpEndpoint:
    """The ASGI endpoint: authenticates, then hands the request to the SDK's manager."""

    def __init__(self, manager: StreamableHTTPSessionManager) -> None:
        self.manager = manager

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive)
        try:
            request.state.caller = authenticate(request, CONNECT_SCOPE)
            if request.method == "GET":
                raise ApiError(405, "method_not_allowed", NO_STREAM, headers=ALLOW)
        except ApiError as error:
            await error_response(error)(scope, receive, send)
            return
        await self.manager.handle_request(scope, receive, send)


def tenant_source(tenants: TenantStores) -> StoreSource:
    """The :data:`~hebbs.mcp.server.StoreSource` of the server: the caller's tenant store."""

    @contextmanager
    def source(ctx: ServerRequestContext[Any, Any], operation: Operation) -> Iterator[Any]:
        caller: Caller | None = getattr(getattr(ctx.request, "state", None), "caller", None)
        if caller is None:
            raise unauthorized("an API key is required: Authorization: Bearer <key>")
        if not caller.grants(operation.scope):
            raise forbidden(
                f"this API key's scope is {caller.scope}; {operation.name} needs {operation.scope}"
            )
        with tenants.lease(caller.tenant) as engine:
            yield CallerStore(tenants, caller, engine)

    return source


def mount(app: FastAPI, tenants: TenantStores) -> StreamableHTTPSessionManager:
    """Adds the transport to ``app`` at :data:`MCP_PATH`; the returned manager's ``run()``
    must be entered for the app's lifetime (its lifespan does)."""
    # The app's loopback middleware checks Host and Origin for every route, this one included.
    security = TransportSecuritySettings(enable_dns_rebinding_protection=False)
    manager = StreamableHTTPSessionManager(
        app=build_server(tenant_source(tenants)),
        json_response=True,
        stateless=True,
        security_settings=security,
    )
    app.router.routes.append(Route(MCP_PATH, McpEndpoint(manager), include_in_schema=False))
    return manager
