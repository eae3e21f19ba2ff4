"""The JSON bytes on the wire, for the server and the client: :func:`dumps` and :func:`loads`.

orjson (brought by the ``server`` and ``client`` extras) rather than the standard ``json``: on
a recall it parses a 384-number cue in a tenth of the time (6 against 62 µs) and writes a
ten-result answer in a tenth too. It writes numpy arrays as lists, NaN and infinities as null
(JSON has neither), and refuses a body that is not strict JSON (lone surrogates, ``NaN``
literals, integers beyond 64 bits) with a :class:`json.JSONDecodeError`, which the server
answers as ``invalid_input`` on ``body``.
"""

from __future__ import annotations

from typing import Any, Final

import orjson

#: The media type of every JSON body.
JSON_MEDIA_TYPE: Final = "application/json"
_OPTIONS: Final = orjson.OPT_SERIALIZE_NUMPY


def dumps(value: Any) -> bytes:
    """The JSON bytes of ``value`` (dicts, lists, strings, numbers, None, numpy arrays)."""
    return orjson.dumps(value, option=_OPTIONS)


def loads(data: bytes | str) -> Any:
    """The value of JSON ``data``; raises :class:`json.JSONDecodeError` (orjson's subclass)."""
    return orjson.loads(data)
