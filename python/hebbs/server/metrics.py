"""Prometheus metrics (prometheus-client), served at ``/v1/metrics`` in the text format:
requests by route template, method and status (``hebbs_http_requests_total``), their latency
(``hebbs_http_request_duration_seconds``) and the tenants' stores open now
(``hebbs_open_tenants``). Each app has its own registry, so several apps in one process (tests)
never share counters."""

from __future__ import annotations

import time
from typing import Callable, Final

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from starlette.types import ASGIApp, Message, Receive, Scope, Send

#: The route label of a request that matched no route.
UNMATCHED: Final = "unmatched"
#: The media type of the metrics page.
CONTENT_TYPE: Final = CONTENT_TYPE_LATEST


class Metrics:
    """The server's metrics and their registry."""

    def __init__(self, open_tenants: Callable[[], int]) -> None:
        self.registry = CollectorRegistry()
        self.requests = Counter(
            "hebbs_http_requests",
            "HTTP requests answered, by route template, method and status.",
            ("route", "method", "status"),
            registry=self.registry,
        )
        self.latency = Histogram(
            "hebbs_http_request_duration_seconds",
            "Time to answer an HTTP request (a stream: until its headers are sent).",
            ("route", "method"),
            registry=self.registry,
        )
        gauge = Gauge("hebbs_open_tenants", "Tenant stores open now.", registry=self.registry)
        gauge.set_function(lambda: float(open_tenants()))

    def render(self) -> bytes:
        return generate_latest(self.registry)


class MetricsMiddleware:
    """ASGI middleware that counts and times every HTTP request."""

    def __init__(self, app: ASGIApp, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        status = 500
        recorded = False

        def record() -> None:
            nonlocal recorded
            if recorded:
                return
            recorded = True
            route = scope.get("route")
            label = getattr(route, "path", None) or UNMATCHED
            method = scope.get("method", "")
            self.metrics.requests.labels(label, method, str(status)).inc()
            self.metrics.latency.labels(label, method).observe(time.perf_counter() - start)

        async def counted(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
                record()
            await send(message)

        try:
            await self.app(scope, receive, counted)
        finally:
            record()
