"""Argument conversion shared by the sync and async APIs: timestamps, weights, vectors."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timezone
from typing import Any

import numpy as np
from numpy.typing import NDArray

from hebbs._native import InvalidInputError, ScoringWeights

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
#: The end of an open time range: the largest timestamp the engine stores.
UNBOUNDED_END_US = 2**64 - 1


def invalid(field: str, reason: str) -> InvalidInputError:
    """An :class:`InvalidInputError` naming ``field``, raised by the Python layer."""
    error = InvalidInputError(f"invalid {field}: {reason}")
    error.field = field
    error.reason = reason
    return error


def to_micros(value: int | datetime | None, field: str) -> int | None:
    """Microseconds since the epoch from an int or an aware datetime (naive means UTC)."""
    if value is None:
        return None
    if isinstance(value, datetime):
        aware = value if value.tzinfo is not None else value.replace(tzinfo=timezone.utc)
        delta = aware - _EPOCH
        return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds
    if isinstance(value, bool) or not isinstance(value, int):
        raise invalid(field, "expected microseconds since the epoch (int) or a datetime")
    if value < 0:
        raise invalid(field, f"{value} is negative")
    return value


def to_time_range(value: Any) -> tuple[int, int] | None:
    """A ``(start, end)`` pair of timestamps, either end may be None (unbounded)."""
    if value is None:
        return None
    try:
        start, end = value
    except (TypeError, ValueError):
        raise invalid("time_range", "expected a (start, end) pair") from None
    low = to_micros(start, "time_range")
    high = to_micros(end, "time_range")
    return (0 if low is None else low, UNBOUNDED_END_US if high is None else high)


def to_weights(value: ScoringWeights | Mapping[str, Any] | None) -> ScoringWeights | None:
    """A :class:`ScoringWeights` from itself or a dict of its fields (missing ones default)."""
    if value is None or isinstance(value, ScoringWeights):
        return value
    if isinstance(value, Mapping):
        try:
            return ScoringWeights(**value)
        except TypeError as error:
            raise invalid("scoring_weights", str(error)) from None
    raise invalid("scoring_weights", "expected a ScoringWeights or a dict")


def to_vector(value: Any, field: str) -> NDArray[np.float32]:
    """A 1-D float32 vector, without a copy when ``value`` already is one."""
    try:
        array = np.asarray(value, dtype=np.float32)
    except (TypeError, ValueError):
        raise invalid(field, "expected a 1-D array of numbers") from None
    if array.ndim != 1:
        raise invalid(field, f"expected a 1-D vector, got shape {array.shape}")
    return array
