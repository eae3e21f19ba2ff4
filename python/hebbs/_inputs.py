"""The one constructor of the input errors (and of the conflicts) the Python layer raises
itself, and the one parser of a memory id (:func:`id_bytes`)."""

from __future__ import annotations

import re

from hebbs.errors import ConflictError, InvalidInputError, InvalidTypeError, InvalidValueError

#: Bytes of a memory id (a UUIDv7).
ID_BYTES = 16
#: The one text syntax of a memory id, on every surface: 32 hex digits, or the same digits in
#: the hyphenated UUID form (8-4-4-4-12), either case. The native parser takes the same two.
ID_TEXT = re.compile(
    r"[0-9a-fA-F]{32}"
    r"|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
)
#: What an id may be, as errors say it.
ID_FORMS = "16 bytes, or 32 hex digits with or without the UUID hyphens"


def invalid(
    field: str, reason: str, error_class: type[InvalidInputError] = InvalidValueError
) -> InvalidInputError:
    """An input error naming ``field``: an :class:`InvalidValueError` unless told otherwise."""
    error = error_class(f"invalid {field}: {reason}")
    error.field = field
    error.reason = reason
    return error


def conflict(field: str, reason: str) -> ConflictError:
    """A :class:`ConflictError` naming ``field``, worded as the engine words its own."""
    error = ConflictError(f"conflict on {field}: {reason}")
    error.field = field
    error.reason = reason
    return error


def id_bytes(value: object, field: str) -> bytes:
    """The 16 bytes of a memory id given as bytes or as :data:`ID_TEXT`; else an input error
    naming ``field`` (an :class:`InvalidTypeError` for a value neither bytes nor text)."""
    if isinstance(value, bytes):
        if len(value) != ID_BYTES:
            raise invalid(field, f"expected {ID_FORMS}, got {len(value)} bytes")
        return value
    if not isinstance(value, str):
        raise invalid(field, f"expected {ID_FORMS}", InvalidTypeError)
    if ID_TEXT.fullmatch(value) is None:
        raise invalid(field, f"expected {ID_FORMS}")
    return bytes.fromhex(value.replace("-", ""))
