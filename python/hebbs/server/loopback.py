"""Loopback only: what keeps a server without auth (``--no-auth``) to this machine.

``hebbs serve --no-auth`` binds a loopback address only (:func:`is_loopback`), but a web page
the operator opens can still reach it: through DNS rebinding (a name of the attacker's that
resolves to 127.0.0.1, so the browser sends ``Host: evil.example``) or by a cross-origin request
(``Origin: http://evil.example``). :class:`LoopbackOnly`, the outermost middleware of such a
server, answers every route (REST, ``/mcp``, the explorer, the OpenAPI pages) with 421
``misdirected_request`` when the ``Host`` header names anything but a loopback host, and 403
``forbidden`` when an ``Origin`` header is sent from anything but a loopback page; any port is
accepted. A server with auth has keys to protect it and no such check (it may serve a public
name).
"""

from __future__ import annotations

import ipaddress
from typing import Final
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Receive, Scope, Send

from hebbs.service.errors import ApiError, error_response

#: The name that means this machine besides the loopback addresses.
LOCALHOST: Final = "localhost"
#: The schemes of an ``Origin`` that a loopback page may have.
ORIGIN_SCHEMES: Final = frozenset({"http", "https"})


def is_loopback(host: str) -> bool:
    """Whether ``host`` names only this machine (``localhost``, 127.0.0.0/8, ``::1``)."""
    if host.lower() == LOCALHOST:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def host_name(authority: str) -> str:
    """The host of a ``Host`` header value, without its port (``[::1]:8080`` is ``::1``)."""
    if authority.startswith("["):
        end = authority.find("]")
        return authority[1:end] if end > 0 else ""
    if authority.count(":") == 1:
        return authority.rsplit(":", 1)[0]
    return authority


def origin_is_loopback(origin: str) -> bool:
    """Whether an ``Origin`` header value is a page served by this machine."""
    try:
        parts = urlsplit(origin)
        hostname = parts.hostname
    except ValueError:
        return False
    return parts.scheme in ORIGIN_SCHEMES and hostname is not None and is_loopback(hostname)


def refusal(headers: dict[bytes, bytes]) -> ApiError | None:
    """Why a request with ``headers`` may not reach a key-less server, or None."""
    host = headers.get(b"host", b"").decode("latin-1")
    if not is_loopback(host_name(host)):
        message = f"a server without auth answers loopback hosts only, not Host {host!r}"
        return ApiError(421, "misdirected_request", message, field="host")
    origin = headers.get(b"origin")
    if origin is not None and not origin_is_loopback(origin.decode("latin-1")):
        message = "a server without auth answers pages of loopback origins only"
        return ApiError(403, "forbidden", message, field="origin")
    return None


class LoopbackOnly:
    """ASGI middleware: refuses requests whose ``Host`` or ``Origin`` is not loopback."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            error = refusal(dict(scope.get("headers", ())))
            if error is not None:
                await error_response(error)(scope, receive, send)
                return
        await self.app(scope, receive, send)
