"""The one interface every provider implements: a task with prompts (for a model) and data
(for the offline provider), answered by a JSON object validated against a pydantic schema."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel

T = TypeVar("T", bound=BaseModel)


@dataclass(frozen=True)
class LLMTask:
    """One structured question.

    ``name`` says what is asked (``reflect.propose``, ``reflect.validate``, ``index.extract``);
    ``system`` and ``prompt`` are what a model reads; ``data`` is the same question as plain
    values, which the offline provider answers without a model.
    """

    name: str
    system: str
    prompt: str
    data: dict[str, Any] = field(default_factory=dict)


@runtime_checkable
class LLMProvider(Protocol):
    """Answers an :class:`LLMTask` with an instance of ``schema``, or raises
    :class:`~hebbs.errors.LLMError`. Safe to call from many threads at once; ``calls`` counts
    the model requests sent (retries and repairs included; 0 for the offline provider)."""

    name: str

    @property
    def calls(self) -> int: ...

    def complete(self, task: LLMTask, schema: type[T]) -> T: ...
