"""The request models of every operation, shared by the embedded API, the asyncio API, the CLI,
the server and the client: one spelling of each operation's parameters (see
:mod:`hebbs.api.requests`) over the checked value types of :mod:`hebbs.api.fields`."""

from hebbs.api.model import Request, Returns, by_keyword, parse
from hebbs.api.recall import (
    DEFAULT_STRATEGIES,
    VECTOR_CUE_STRATEGIES,
    PrimeRequest,
    RecallRequest,
    WeightsInput,
    resolve_quality,
    to_scoring_weights,
)
from hebbs.api.requests import *  # noqa: F403 (every request model: requests.__all__)
from hebbs.api.requests import __all__ as _REQUESTS

__all__ = [
    "DEFAULT_STRATEGIES",
    "VECTOR_CUE_STRATEGIES",
    "PrimeRequest",
    "RecallRequest",
    "Request",
    "Returns",
    "WeightsInput",
    "by_keyword",
    "parse",
    "resolve_quality",
    "to_scoring_weights",
]
__all__ += _REQUESTS
