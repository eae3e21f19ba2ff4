"""The exception hierarchy: every hebbs error derives from :class:`HebbsError`.

The engine's errors are defined by the native module, one class per core error variant; an
invalid input is an :class:`InvalidValueError` (also a ``ValueError``) or, for a value of the
wrong type, an :class:`InvalidTypeError` (also a ``TypeError``), both ``InvalidInputError``s;
:class:`EmbeddingError` is raised by the Python layer when an embedder fails, :class:`RerankError`
when a re-ranker (ONNX cross-encoder, HTTP service) fails or answers with something unusable.
:class:`LLMError` when an LLM provider (reflection, indexing) fails or keeps answering with
unusable JSON. :class:`InternalError` is a panic in the engine (a bug in hebbs).
:class:`HebbsIOError` is also an :class:`OSError`. :class:`ConflictError` is a well-formed
request that contradicts the store's current state (revising a memory a newer revision already
superseded, importing an id the store holds, making a tenant of one organization join
another); like an input error it carries ``field`` and ``reason``, and nothing was written.

The remote client (:mod:`hebbs.client`) raises the same classes for the same failures, plus
:class:`AuthError` (the server refused the API key), :class:`RateLimitedError` (too many
requests; ``retry_after`` says when to try again), :class:`ServerUnavailableError` (the server
could not be reached, timed out or is not ready) and :class:`RemoteUnsupportedError` (an
in-process-only operation, also a ``NotImplementedError``).

``IndexError`` is a deprecated alias of :class:`VectorIndexError` (it shadowed the builtin);
reading it warns with :class:`DeprecationWarning`. It goes away in the next release.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

from hebbs._native import (
    ClosedError,
    ConflictError,
    CorruptionError,
    HebbsError,
    HebbsIOError,
    InternalError,
    InvalidInputError,
    InvalidTypeError,
    InvalidValueError,
    NotFoundError,
    StorageError,
    TextIndexError,
    VectorIndexError,
)

if TYPE_CHECKING:
    # What type checkers see of the deprecated alias; at run time `__getattr__` serves it.
    IndexError = VectorIndexError


class EmbeddingError(HebbsError):
    """The embedder failed or returned vectors of the wrong shape."""


class RerankError(HebbsError):
    """A re-ranker failed: its model could not be loaded or run, or a re-rank service answered
    with an HTTP error, timed out, or sent a body that is not the expected shape.

    ``status`` is the HTTP status when the service answered with one, else None.
    """

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class LLMError(HebbsError):
    """An LLM provider failed: the service could not be reached or kept answering 429 / 5xx
    after the retries, refused the request, or twice answered with JSON that does not match the
    task's schema (one repair request is made first). ``status`` is the last HTTP status, if
    any; ``provider`` names the provider (``openai``, ``anthropic``, ``offline``)."""

    def __init__(self, message: str, *, provider: str, status: int | None = None) -> None:
        super().__init__(message)
        self.provider = provider
        self.status = status


class AuthError(HebbsError):
    """The server refused the request's API key: missing, unknown, revoked, expired, or without
    the scope the operation needs. ``status`` is the HTTP status (401 or 403)."""

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class RateLimitedError(HebbsError):
    """The server refused the request because the key sent too many; ``retry_after`` is the
    number of seconds it asked the client to wait, or None when it did not say."""

    def __init__(self, message: str, *, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class ServerUnavailableError(HebbsError):
    """The server could not be reached (refused or dropped connection, timeout) or answered
    that it is not ready yet. Retrying later may succeed."""


class RemoteUnsupportedError(HebbsError, NotImplementedError):
    """The operation only exists in-process (e.g. ``optimize``, ``checkpoint``, the embedder,
    token vectors): a remote client cannot run it. Also a ``NotImplementedError``."""


def _deprecated_alias(module: str, name: str) -> type[VectorIndexError]:
    """The class deprecated alias ``name`` of ``module`` stands for, after a
    :class:`DeprecationWarning`; :class:`AttributeError` for any other name (PEP 562)."""
    if name == "IndexError":
        warnings.warn(
            f"{module}.IndexError is deprecated, use {module}.VectorIndexError",
            DeprecationWarning,
            stacklevel=3,
        )
        return VectorIndexError
    raise AttributeError(f"module {module!r} has no attribute {name!r}")


if not TYPE_CHECKING:

    def __getattr__(name: str) -> type[VectorIndexError]:
        return _deprecated_alias(__name__, name)


__all__ = [
    "AuthError",
    "ClosedError",
    "ConflictError",
    "CorruptionError",
    "EmbeddingError",
    "HebbsError",
    "HebbsIOError",
    "InternalError",
    "InvalidInputError",
    "InvalidTypeError",
    "InvalidValueError",
    "LLMError",
    "NotFoundError",
    "RateLimitedError",
    "RemoteUnsupportedError",
    "RerankError",
    "ServerUnavailableError",
    "StorageError",
    "TextIndexError",
    "VectorIndexError",
]
