"""A property-based fuzz of the REST server from its own OpenAPI document (schemathesis): every
operation, given data that fits its schema and data that does not, answers with a status its
document declares, the media type declared for it and a body matching the declared model, and
never with a 5xx. Once with a valid write key, once with no key (401 wherever a key is needed).

The server is a real uvicorn on 127.0.0.1 (``BackgroundServer``) over the small deterministic
embedder, with a rate limit high enough that the fuzz is never throttled. CI runs a few
derandomized examples per operation; ``HEBBS_FUZZ_EXAMPLES=2000`` runs a long, random search.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_schema_conformance,
    status_code_conformance,
)

from hebbs.server.serve import BackgroundServer
from hebbs.service.keys import KeyStore

Embed = Callable[[list[str]], np.ndarray]

#: Examples per operation. The default keeps the test near half a minute and the same on every
#: run; setting ``HEBBS_FUZZ_EXAMPLES`` runs that many random examples per operation instead.
EXAMPLES = int(os.environ.get("HEBBS_FUZZ_EXAMPLES", "25"))
#: Derandomized (the same examples every run) unless a long search was asked for.
DERANDOMIZE = "HEBBS_FUZZ_EXAMPLES" not in os.environ
#: Requests a second the fuzz may make without being throttled (429 is tested elsewhere).
UNTHROTTLED = 1e9
#: Server-sent events read from ``POST /v1/subscribe`` before the stream is dropped.
STREAM_EVENTS = 1
#: The paths that answer without a key.
PUBLIC_PATHS = frozenset({"/v1/health/live", "/v1/health/ready"})
#: What every answer must satisfy.
# The import body (an export, JSON Lines) is declared a string: sent as its text.
schemathesis.serializer.alias("application/x-ndjson", "text/plain")

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    negative_data_rejection,
]
FUZZ_SETTINGS = settings(
    max_examples=EXAMPLES,
    derandomize=DERANDOMIZE,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)


@pytest.fixture(scope="module")
def server(
    tmp_path_factory: pytest.TempPathFactory, hash_embed: Embed
) -> Iterator[BackgroundServer]:
    data_dir = tmp_path_factory.mktemp("fuzz")
    with BackgroundServer(
        data_dir, embedder=hash_embed, rate_per_s=UNTHROTTLED, rate_burst=int(UNTHROTTLED)
    ) as running:
        yield running


@pytest.fixture(scope="module")
def write_headers(server: BackgroundServer) -> dict[str, str]:
    keys = KeyStore(Path(server.app.state.auth.keys.path).parent)
    key, _ = keys.create("fuzz", "write")
    keys.close()
    return {"Authorization": f"Bearer {key}"}


@pytest.fixture(scope="module")
def api_schema(server: BackgroundServer) -> Any:
    config = schemathesis.Config.from_dict(
        {"base-url": server.url, "max-stream-events": STREAM_EVENTS}
    )
    return schemathesis.openapi.from_url(f"{server.url}/openapi.json", config=config)


schema = schemathesis.pytest.from_fixture("api_schema")


@schema.parametrize()
@FUZZ_SETTINGS
def test_every_operation_with_a_write_key(case: Any, write_headers: dict[str, str]) -> None:
    case.call_and_validate(headers=write_headers, checks=CHECKS)


@schema.parametrize()
@FUZZ_SETTINGS
def test_every_operation_without_a_key(case: Any) -> None:
    response = case.call_and_validate(checks=CHECKS)
    if (
        case.operation.path not in PUBLIC_PATHS
        and case.method.upper() == case.operation.method.upper()
    ):
        assert response.status_code == 401, response.text
        assert response.json()["error_code"] == "unauthorized"
