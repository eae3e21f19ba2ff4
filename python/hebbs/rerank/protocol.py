"""The :class:`Reranker` protocol, the optional :class:`MemoryReranker` extension, and the input
checks every re-ranker shares (a non-empty query, a sequence of ``str`` documents).

Its annotations are importable at run time, so ``typing.get_type_hints`` works on it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

from hebbs._inputs import id_bytes, invalid
from hebbs.types import MemoryIdLike


@runtime_checkable
class Reranker(Protocol):
    """Scores how well each document answers a query, reading both together.

    ``rerank`` returns a float32 array of ``len(documents)`` scores in input order; higher is
    better. Scores are comparable within one call only (a cross-encoder's logits, a cosine
    mean, a service's relevance score). Bad input raises
    :class:`~hebbs.errors.InvalidInputError` naming the field; a failing model or service
    raises :class:`~hebbs.errors.RerankError`.
    """

    def rerank(self, query: str, documents: Sequence[str]) -> NDArray[np.float32]:
        """Scores of ``documents`` for ``query``, in input order, higher is better."""
        ...


@runtime_checkable
class MemoryReranker(Reranker, Protocol):
    """A re-ranker that can reuse work per stored memory (for example cached token vectors).

    ``rerank_memories`` must return exactly what ``rerank`` returns for the same documents;
    ``ids`` only lets it skip recomputing what it already knows about a memory, whose content
    never changes under the same id (a revision is a new memory).
    """

    def rerank_memories(
        self, query: str, ids: Sequence[MemoryIdLike], documents: Sequence[str]
    ) -> NDArray[np.float32]:
        """Scores of ``documents`` (the contents of memories ``ids``) for ``query``."""
        ...


def check_input(query: object, documents: object) -> tuple[str, list[str]]:
    """The query and documents of a ``rerank`` call, checked (see the two functions below)."""
    return check_query(query), check_documents(documents)


def check_query(query: object) -> str:
    """``query`` as a str, or InvalidInputError unless it is a non-blank str."""
    if not isinstance(query, str):
        raise invalid("query", f"must be a str, got {type(query).__name__}")
    if not query.strip():
        raise invalid("query", "must not be empty")
    return query


def check_documents(documents: object) -> list[str]:
    """``documents`` as a list of str, or InvalidInputError naming the offending entry.

    A bare ``str`` is refused: iterating it would re-rank one character per document.
    """
    if isinstance(documents, (str, bytes)) or not isinstance(documents, Sequence):
        raise invalid("documents", "must be a sequence of str (wrap a single text in a list)")
    out = list(documents)
    for i, document in enumerate(out):
        if not isinstance(document, str):
            raise invalid(f"documents[{i}]", f"must be a str, got {type(document).__name__}")
    return out


def check_ids(ids: object, count: int) -> list[bytes]:
    """Memory ids as 16 raw bytes each (hex strings are decoded), one per document."""
    if isinstance(ids, (str, bytes)) or not isinstance(ids, Sequence):
        raise invalid("ids", "must be a sequence of memory ids")
    if len(ids) != count:
        raise invalid("ids", f"has {len(ids)} entries for {count} documents")
    return [memory_key(value, f"ids[{i}]") for i, value in enumerate(ids)]


def memory_key(value: object, field: str) -> bytes:
    """The 16 raw bytes of a memory id given as bytes or text (:func:`hebbs._inputs.id_bytes`)."""
    return id_bytes(value, field)


def empty_scores() -> NDArray[np.float32]:
    """The scores of no documents."""
    return np.zeros(0, dtype=np.float32)
