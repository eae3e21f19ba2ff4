"""Each operation's request model is the call (``hebbs.api.operations``): every request type
runs on the embedded store and has an HTTP route (or is in-process only), ``run`` of a model
answers as the keyword method does, and the native recall reads every field the model hands
it, refusing any other, so no field is dropped on the way to the core."""

from __future__ import annotations

import inspect
import logging
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import hebbs
from hebbs import _native
from hebbs.api import RecallRequest, Request, Returns, parse, recall, requests
from hebbs.api.async_operations import AsyncOperations
from hebbs.api.operations import Operations
from hebbs.client.operations import IN_PROCESS_ONLY, ROUTES
from hebbs.engine import _HANDLERS, _RESOLVED_RECALL_FIELDS

DIM = 8


def _operation_requests() -> set[type[Any]]:
    """Every request model that names what its operation returns."""
    return {
        model
        for module in (requests, recall)
        for model in vars(module).values()
        if inspect.isclass(model)
        and issubclass(model, Request)
        and issubclass(model, Returns)
        and model is not Request
    }


def test_every_request_runs_embedded_and_has_a_route_or_is_in_process_only() -> None:
    models = _operation_requests()
    assert set(_HANDLERS) == models
    assert set(ROUTES) | set(IN_PROCESS_ONLY) == models
    assert not set(ROUTES) & set(IN_PROCESS_ONLY)


def test_each_keyword_method_is_defined_once_for_every_store() -> None:
    """The stores inherit the keyword methods: none spells a signature of its own."""
    methods = {
        name
        for base in Operations.__mro__
        if base.__module__.startswith("hebbs.api.")
        for name, value in vars(base).items()
        if inspect.isfunction(value) and not name.startswith("_") and name != "run"
    }
    assert "recall" in methods
    assert "subscribe" in methods
    for store in (hebbs.Hebbs, hebbs.HebbsClient):
        for name in methods - {"open_subscription"}:
            assert name not in vars(store), f"{store.__name__}.{name} repeats the signature"


def test_each_coroutine_method_is_defined_once_for_both_asyncio_stores() -> None:
    """``AsyncOperations`` has a coroutine of every keyword method (``subscribe`` apart, whose
    subscription type is each class's), and neither asyncio class spells one of its own."""
    keyword = {
        name
        for base in Operations.__mro__
        if base.__module__.startswith("hebbs.api.")
        for name, value in vars(base).items()
        if inspect.isfunction(value) and not name.startswith("_")
    } - {"run", "open_subscription", "subscribe"}
    coroutines = {
        name for name, value in vars(AsyncOperations).items() if inspect.iscoroutinefunction(value)
    }
    assert coroutines == keyword | {"run"}
    for store in (hebbs.AsyncHebbs, hebbs.AsyncHebbsClient):
        assert not keyword & set(vars(store)), f"{store.__name__} repeats a coroutine method"


def test_the_api_package_exports_every_request_model() -> None:
    defined = {
        name
        for name, value in vars(requests).items()
        if inspect.isclass(value) and value.__module__ == requests.__name__
    }
    assert defined <= set(requests.__all__)
    assert all(getattr(hebbs.api, name) is getattr(requests, name) for name in requests.__all__)


def test_run_of_a_model_answers_as_the_keyword_method(tmp_path: Path) -> None:
    def embed(texts: list[str]) -> np.ndarray:
        rows = np.zeros((len(texts), DIM), dtype=np.float32)
        for row, text in enumerate(texts):
            rows[row, len(text) % DIM] = 1.0
        return rows

    with hebbs.Hebbs.open(tmp_path / "db", embedder=embed, token_vectors=False) as engine:
        engine.remember("the invoice was late", entity_id="acme")
        engine.remember("the renewal is signed", entity_id="acme")
        by_keyword = engine.recall("invoice", top_k=2, strategies=["similarity", "keyword"])
        by_model = engine.run(
            parse(
                RecallRequest,
                {"cue": "invoice", "top_k": 2, "strategies": ["similarity", "keyword"]},
            )
        )
        assert [r.memory.id for r in by_model.results] == [r.memory.id for r in by_keyword.results]
        with pytest.raises(hebbs.InvalidTypeError) as caught:
            engine.run(object())  # type: ignore[arg-type]
        assert caught.value.field == "request"


def test_the_native_recall_reads_every_model_field_and_refuses_others(tmp_path: Path) -> None:
    native = _native.NativeEngine(str(tmp_path / "db"), dimension=DIM)
    cue = np.ones(DIM, dtype=np.float32)
    native.remember({"content": "acme billing dispute", "entity_id": "acme"}, cue)
    passed_on = set(RecallRequest.model_fields) - _RESOLVED_RECALL_FIELDS
    assert {"top_k", "filter", "cue"} <= passed_on
    for name in sorted(passed_on):
        # The binding reads each key it knows, a None as "not given" too; any other key is
        # refused, so the model's default (None or a value) shows the binding reads the field.
        native.recall({"cue_embedding": cue, name: RecallRequest.model_fields[name].default})
    with pytest.raises(hebbs.InvalidTypeError) as caught:
        native.recall({"cue_embedding": cue, "quality": "best"})
    assert caught.value.field == "quality"
    with pytest.raises(hebbs.InvalidTypeError) as caught:
        native.recall({"cue_embedding": cue, "top_k": "ten"})
    assert caught.value.field == "top_k"


def test_the_core_logs_through_python_logging(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="hebbs_core"):
        native = _native.NativeEngine(str(tmp_path / "db"), dimension=DIM)
        native.close()
    [opened] = [r for r in caplog.records if r.name == "hebbs_core.engine"]
    assert opened.levelno == logging.INFO
    assert str(tmp_path / "db") in opened.getMessage()
    assert "0 memories" in opened.getMessage()
