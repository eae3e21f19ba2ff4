"""``OfflineProvider``: answers the pipelines' tasks without a model or a network, from the
task's ``data``: extractive insights for reflection (:mod:`hebbs.reflect.extractive`) and
sentence-split propositions with rule-based entities for indexing (:mod:`hebbs.ingest.extract`).
Deterministic: the same data gives the same answer."""

from __future__ import annotations

import importlib
from typing import Any, Callable

from hebbs.errors import LLMError

from .protocol import LLMTask, T

Handler = Callable[[dict[str, Any]], dict[str, Any]]


#: Each task the offline provider answers: the module and function that answer it (imported on
#: first use: the pipelines import this package, not the other way round).
_HANDLERS: dict[str, tuple[str, str]] = {
    "reflect.propose": ("hebbs.reflect.extractive", "offline_propose"),
    "reflect.validate": ("hebbs.reflect.extractive", "offline_validate"),
    "index.extract": ("hebbs.ingest.extract", "offline_extract"),
}


def _handler(name: str) -> Handler | None:
    found = _HANDLERS.get(name)
    if found is None:
        return None
    handler: Handler = getattr(importlib.import_module(found[0]), found[1])
    return handler


class OfflineProvider:
    """The provider used when none is configured: no model, no network, no key."""

    name = "offline"

    def __repr__(self) -> str:
        return "OfflineProvider()"

    @property
    def calls(self) -> int:
        """Always 0: no model is called."""
        return 0

    def complete(self, task: LLMTask, schema: type[T]) -> T:
        handler = _handler(task.name)
        if handler is None:
            raise LLMError(f"the offline provider cannot answer {task.name!r}", provider=self.name)
        return schema.model_validate(handler(task.data))
