"""Parsers of single command-line values (``--edge``, ``--weights``, timestamps, ``--context``,
fractions and counts, the server's durations, ports, hosts and tenants, and the ``--url`` and
``--api-key`` of a command run against a server). Each is an
argparse ``type=`` function: it returns the parsed value or raises
:class:`argparse.ArgumentTypeError`, which argparse reports with the option's name."""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import urllib.parse
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any, Final

from hebbs import _native as native
from hebbs.api.fields import EDGE_TYPE_NAMES, MEMORY_KIND_NAMES, U64_MAX
from hebbs.api.fields import MAX_JSON_DEPTH as FIELD_JSON_DEPTH
from hebbs.service.tenants import valid_tenant

#: Separator inside ``--edge`` and ``--weights`` values.
FIELD_SEPARATOR: Final = ":"
#: Edge types, in the snake-case spelling the engine reports (the request models' names).
EDGE_TYPES: Final = EDGE_TYPE_NAMES
#: Memory kinds, as the engine names them (the request models' names).
MEMORY_KINDS: Final = MEMORY_KIND_NAMES
#: Recall strategies the command line offers.
STRATEGIES: Final = ("similarity", "temporal", "causal", "analogical", "hybrid", "keyword")
#: Directions of a causal walk (towards causes, towards effects, or both) and the default.
DIRECTIONS: Final = native.DIRECTIONS
DEFAULT_DIRECTION: Final = native.DEFAULT_DIRECTION
#: Names of the four composite-score weights, in the order ``--weights`` takes them.
WEIGHT_NAMES: Final = ("w_relevance", "w_recency", "w_importance", "w_reinforcement")
#: The Unix epoch, the zero of every stored timestamp.
EPOCH: Final = datetime(1970, 1, 1, tzinfo=timezone.utc)
#: One microsecond, the unit of stored timestamps.
MICROSECOND: Final = timedelta(microseconds=1)
#: Units of relative times such as ``7d`` (seven days ago).
RELATIVE_UNITS: Final = {
    "s": timedelta(seconds=1),
    "m": timedelta(minutes=1),
    "h": timedelta(hours=1),
    "d": timedelta(days=1),
    "w": timedelta(weeks=1),
}
_RELATIVE_TIME = re.compile(r"^([0-9]+(?:\.[0-9]+)?)([smhdw])$")
#: The largest integer an engine argument holds (a u64, the request models' bound); a larger one
#: is refused while parsing, so a huge digit string is never converted.
MAX_INTEGER: Final = U64_MAX
#: An integer as the command line takes it: ASCII digits with an optional sign (no ``_``
#: separators, no other scripts' digits).
_INTEGER = re.compile(r"^[+-]?[0-9]+$")
#: The URL schemes a hebbs server answers on.
URL_SCHEMES: Final = ("http", "https")
#: The longest ``--api-key`` taken (a key is ``hb_`` and 43 characters; a longer value is not a
#: key, and refusing it keeps a pasted file out of the request headers).
MAX_API_KEY_CHARS: Final = 256
#: How deeply ``--context`` JSON may nest (the request models' bound); deeper documents are
#: refused before parsing, so the parser never runs out of stack.
MAX_JSON_DEPTH: Final = FIELD_JSON_DEPTH


@dataclass(frozen=True)
class EdgeSpec:
    """One ``--edge TARGET:TYPE[:CONFIDENCE]``; ``confidence`` None means the engine default."""

    target: str
    edge_type: str
    confidence: float | None


#: The four weights of ``--weights``, in :data:`WEIGHT_NAMES` order.
Weights = tuple[float, float, float, float]

#: The recency-biased weights of seed 000 (its time-ordered view), relevance:recency:
#: importance:reinforcement.
RECENCY_WEIGHTS: Final[Weights] = (0.3, 0.5, 0.2, 0.0)


def format_weights(four: Weights) -> str:
    """``RELEVANCE:RECENCY:IMPORTANCE:REINFORCEMENT`` as ``--weights`` takes it, e.g.
    ``0.3:0.5:0.2:0`` (six significant digits, so float32 defaults print as typed)."""
    return FIELD_SEPARATOR.join(f"{weight:g}" for weight in four)


def unicode_text(text: str) -> str:
    """``text`` unchanged when it is valid Unicode. An argument with bytes that are not UTF-8
    reaches Python with lone surrogates in their place, which nothing can store."""
    if not _encodes(text):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not valid UTF-8 (it holds a lone surrogate, e.g. from undecodable bytes)"
        )
    return text


def _encodes(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def edge_spec(text: str) -> EdgeSpec:
    """Parses ``TARGET:TYPE[:CONFIDENCE]``; TYPE is snake_case or CamelCase (``CausedBy``)."""
    unicode_text(text)
    parts = text.split(FIELD_SEPARATOR)
    if len(parts) not in (2, 3) or not parts[0].strip():
        raise argparse.ArgumentTypeError(f"expected TARGET:TYPE[:CONFIDENCE], got {text!r}")
    confidence = fraction(parts[2], "confidence") if len(parts) == 3 else None
    return EdgeSpec(parts[0].strip(), edge_type(parts[1]), confidence)


def edge_type(text: str) -> str:
    """The snake-case edge type for ``text`` in any case, with or without underscores."""
    folded = text.strip().replace("_", "").replace("-", "").lower()
    for name in EDGE_TYPES:
        if name.replace("_", "") == folded:
            return name
    raise argparse.ArgumentTypeError(
        f"unknown edge type {text!r} (expected one of {', '.join(EDGE_TYPES)})"
    )


def strategy(text: str) -> str:
    """A strategy name, case-insensitively."""
    return _choice(text, STRATEGIES, "strategy")


def direction(text: str) -> str:
    """A causal direction name, case-insensitively."""
    return _choice(text, DIRECTIONS, "direction")


def _choice(text: str, choices: tuple[str, ...], what: str) -> str:
    name = text.strip().lower()
    if name not in choices:
        raise argparse.ArgumentTypeError(
            f"unknown {what} {text!r} (expected one of {', '.join(choices)})"
        )
    return name


def weights(text: str) -> Weights:
    """Parses ``RELEVANCE:RECENCY:IMPORTANCE:REINFORCEMENT``, e.g. ``0.3:0.5:0.2:0``."""
    parts = text.split(FIELD_SEPARATOR)
    if len(parts) != len(WEIGHT_NAMES):
        raise argparse.ArgumentTypeError(
            f"expected {len(WEIGHT_NAMES)} weights RELEVANCE:RECENCY:IMPORTANCE:REINFORCEMENT, "
            f"got {len(parts)} in {text!r}"
        )
    values = [non_negative(part, name) for part, name in zip(parts, WEIGHT_NAMES)]
    if not any(values):
        raise argparse.ArgumentTypeError("at least one weight must be positive")
    return (values[0], values[1], values[2], values[3])


def fraction(text: str, name: str = "value") -> float:
    """A finite number in 0..1."""
    value = finite(text, name)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"{name} {text.strip()!r} is outside 0..1")
    return value


def importance(text: str) -> float:
    """An importance: a number in 0..1."""
    return fraction(text, "importance")


def relevance(text: str) -> float:
    """A relevance floor: a number in 0..1."""
    return fraction(text, "relevance")


def alpha(text: str) -> float:
    """An analogical alpha: a number in 0..1."""
    return fraction(text, "alpha")


def non_negative(text: str, name: str) -> float:
    """A finite number that is at least 0."""
    value = finite(text, name)
    if value < 0.0:
        raise argparse.ArgumentTypeError(f"{name} {text.strip()!r} is negative")
    return value


def finite(text: str, name: str) -> float:
    """A finite float, written in ASCII without ``_`` separators."""
    try:
        if not text.isascii() or "_" in text:
            raise ValueError(text)
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{name} {text.strip()!r} is not a number") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{name} {text.strip()!r} is not finite")
    return value


def count(text: str) -> int:
    """An integer of at least 0."""
    return _int_at_least(text, 0)


def positive_int(text: str) -> int:
    """An integer of at least 1."""
    return _int_at_least(text, 1)


def _int_at_least(text: str, minimum: int) -> int:
    stripped = text.strip()
    if not _INTEGER.match(stripped):
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer")
    if len(stripped.lstrip("+-").lstrip("0")) > len(str(MAX_INTEGER)):
        raise argparse.ArgumentTypeError(f"{_abridged(stripped)} is above {MAX_INTEGER}")
    value = int(stripped)
    if value < minimum:
        raise argparse.ArgumentTypeError(f"{value} must be at least {minimum}")
    if value > MAX_INTEGER:
        raise argparse.ArgumentTypeError(f"{value} is above {MAX_INTEGER}")
    return value


def _abridged(digits: str) -> str:
    """A long number as its first digits and its length, for error messages."""
    return digits if len(digits) <= 24 else f"{digits[:12]}... ({len(digits)} digits)"


def context_object(text: str) -> dict[str, Any]:
    """A JSON object, e.g. ``{"channel": "email", "topic": "pricing"}``, nested at most
    :data:`MAX_JSON_DEPTH` deep, whose strings are valid Unicode."""
    unicode_text(text)
    if _nesting(text) > MAX_JSON_DEPTH:
        raise argparse.ArgumentTypeError(f"JSON nested more than {MAX_JSON_DEPTH} deep")
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise argparse.ArgumentTypeError(f"not valid JSON ({error.msg})") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError(f"expected a JSON object, got a JSON {_json_type(value)}")
    bad = _lone_surrogate_path(value, "")
    if bad is not None:
        raise argparse.ArgumentTypeError(
            f"the string at {bad} is not valid UTF-8 (a \\u escape of a lone surrogate)"
        )
    return value


def _nesting(text: str) -> int:
    """An upper bound of the nesting depth of JSON ``text``: brackets outside strings."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def _json_type(value: object) -> str:
    """The JSON name of a decoded value's type."""
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    return "null"


def _lone_surrogate_path(value: object, path: str) -> str | None:
    """Where in decoded JSON a key or string is not valid Unicode, as ``.a[0].b``, or None."""
    if isinstance(value, str):
        return None if _encodes(value) else path
    if isinstance(value, dict):
        for key, item in value.items():
            if not _encodes(key):
                return f"{path}.{key!r}"
            found = _lone_surrogate_path(item, f"{path}.{key}")
            if found is not None:
                return found
    if isinstance(value, list):
        for i, item in enumerate(value):
            found = _lone_surrogate_path(item, f"{path}[{i}]")
            if found is not None:
                return found
    return None


def timestamp(text: str) -> int:
    """Microseconds since the epoch from integer microseconds, an ISO 8601 date or time (UTC
    when it has no offset), or a relative time ago such as ``90m``, ``12h``, ``7d``, ``2w``."""
    stripped = text.strip()
    if _INTEGER.match(stripped) and not stripped.startswith(("-", "+")):
        return count(stripped)
    relative = _RELATIVE_TIME.match(stripped)
    if relative:
        amount, unit = relative.groups()
        try:
            moment = datetime.now(timezone.utc) - float(amount) * RELATIVE_UNITS[unit]
        except OverflowError:
            raise argparse.ArgumentTypeError(f"{stripped!r} reaches back before 1970") from None
        return to_micros(moment)
    return to_micros(iso_datetime(stripped))


def iso_datetime(text: str) -> datetime:
    """An aware datetime from ISO 8601 (a trailing ``Z`` means UTC; no offset means UTC)."""
    normalised = text[:-1] + "+00:00" if text.endswith(("Z", "z")) else text
    try:
        parsed = datetime.fromisoformat(normalised)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not microseconds, an ISO 8601 time or a relative time like 7d"
        ) from None
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=timezone.utc)


def to_micros(moment: datetime) -> int:
    """Microseconds since the epoch of an aware datetime; earlier than the epoch is an error."""
    if moment < EPOCH:
        raise argparse.ArgumentTypeError(f"{moment.isoformat()} is before 1970-01-01")
    return (moment - EPOCH) // MICROSECOND


def from_micros(micros: int) -> datetime:
    """The UTC datetime of microseconds since the epoch."""
    return EPOCH + micros * MICROSECOND


#: The longest key lifetime ``--expires`` takes (about a hundred years).
MAX_EXPIRY: Final = timedelta(days=36_525)
#: The largest TCP port.
MAX_PORT: Final = 65_535


def duration(text: str) -> float:
    """Seconds of a positive duration such as ``90m``, ``12h``, ``30d``, ``2w``."""
    stripped = text.strip()
    relative = _RELATIVE_TIME.match(stripped)
    if not relative:
        raise argparse.ArgumentTypeError(f"{text!r} is not a duration like 30d, 12h or 90m")
    amount, unit = relative.groups()
    try:
        span = float(amount) * RELATIVE_UNITS[unit]
    except OverflowError:
        span = MAX_EXPIRY * 2
    if span > MAX_EXPIRY:
        raise argparse.ArgumentTypeError(f"{stripped} is longer than {MAX_EXPIRY.days} days")
    if span <= timedelta(0):
        raise argparse.ArgumentTypeError(f"{stripped} is not positive")
    return span.total_seconds()


def port(text: str) -> int:
    """A TCP port, 0 (any free one) to 65535."""
    value = count(text)
    if value > MAX_PORT:
        raise argparse.ArgumentTypeError(f"{value} is above {MAX_PORT}")
    return value


def host(text: str) -> str:
    """A host name or address to listen on: non-empty, no spaces."""
    checked = unicode_text(text)
    if not checked or any(char.isspace() for char in checked):
        raise argparse.ArgumentTypeError(f"{text!r} is not a host name or address")
    return checked


def tenant(text: str) -> str:
    """A tenant name: lower-case letters, digits, ``_`` and ``-``, at most 63."""
    if not valid_tenant(text):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a tenant name (a-z, 0-9, _ and -, starting with a letter or "
            "digit, at most 63)"
        )
    return text


def existing_file(text: str) -> str:
    """The path of a file that exists."""
    checked = unicode_text(text)
    if not checked or not os.path.isfile(checked):
        raise argparse.ArgumentTypeError(f"{text!r} is not a file")
    return checked


def existing_dir(text: str) -> str:
    """The path of a directory that exists."""
    checked = unicode_text(text)
    if not checked or not os.path.isdir(checked):
        raise argparse.ArgumentTypeError(f"{text!r} is not a directory")
    return checked


def name(text: str) -> str:
    """A non-blank name (a collection, a metadata key)."""
    checked = unicode_text(text)
    if not checked.strip():
        raise argparse.ArgumentTypeError("must not be empty")
    return checked


def url(text: str) -> str:
    """The base URL of a hebbs server: ``http://`` or ``https://`` with a host, no spaces."""
    checked = unicode_text(text)
    if not _is_server_url(checked):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a server URL such as http://127.0.0.1:6381"
        )
    return checked


def _is_server_url(text: str) -> bool:
    if not text or any(char.isspace() for char in text):
        return False
    try:
        parts = urllib.parse.urlsplit(text)
        parts.port  # noqa: B018 (raises ValueError for a port that is not one)
    except ValueError:
        return False
    return parts.scheme in URL_SCHEMES and bool(parts.hostname)


def api_key(text: str) -> str:
    """An API key as sent in ``Authorization: Bearer``: printable ASCII, no spaces. The value
    never appears in the message: a key must not reach a terminal or a log."""
    if not text or len(text) > MAX_API_KEY_CHARS or not all("!" <= char <= "~" for char in text):
        raise argparse.ArgumentTypeError(
            f"not an API key (1 to {MAX_API_KEY_CHARS} printable ASCII characters, no spaces)"
        )
    return text
