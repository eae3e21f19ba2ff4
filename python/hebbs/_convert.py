"""The one constructor of the input errors (and of the conflicts) the Python layer raises
itself."""

from __future__ import annotations

from hebbs.errors import ConflictError, InvalidInputError, InvalidValueError

#: Bytes of a memory id (a UUIDv7).
ID_BYTES = 16


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
