"""``Hebbs.recall`` takes a shorter way for calls that pass every argument by keyword
(:func:`hebbs.api.model.by_keyword`). Whatever the arguments, valid or not, that way builds
the same request as the method's own body (a call with an argument by position), or raises the
same error naming the same field; a keyword the method does not take is Python's TypeError.
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import hebbs
import hebbs.engine
from hebbs.api import DEFAULT_STRATEGIES, RecallRequest

DIM = 8
PARAMETERS = inspect.signature(hebbs.Hebbs.recall).parameters
#: The parameters a call may give by position, in order (``self`` left out).
POSITIONAL = [
    name
    for name, parameter in PARAMETERS.items()
    if name != "self" and parameter.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
]
VECTOR = np.linspace(-1.0, 1.0, DIM, dtype=np.float32)

#: Valid and invalid values of the parameters that decide most of a recall.
VALUES: dict[str, st.SearchStrategy[Any]] = {
    "cue": st.sampled_from([None, "", "what happened", 3, "\ud800"]),
    "strategies": st.sampled_from(
        [DEFAULT_STRATEGIES, ["similarity"], ["temporal", "keyword"], "similarity", [7], []]
    ),
    "top_k": st.sampled_from([1, 10, 0, -1, 2**70, "10", 1.5]),
    "entity_id": st.sampled_from([None, "acme", 5]),
    "time_range": st.sampled_from([None, (0, 10), (None, 5), (1, 2, 3), "x"]),
    "ef_search": st.sampled_from([None, 10, -3, "ten"]),
    "scoring_weights": st.sampled_from(
        [None, hebbs.ScoringWeights(1.0, 0.0, 0.0, 0.0), {"w_recency": 0.5}, {"w_bogus": 1}, 2]
    ),
    "cue_embedding": st.sampled_from(
        [None, VECTOR, VECTOR.astype(np.float64), VECTOR[:3], [0.5] * DIM, "v", np.zeros((2, 2))]
    ),
    "include_embedding": st.sampled_from([False, True, "yes"]),
    "rrf_k": st.sampled_from([60, 0, -1]),
    "min_relevance": st.sampled_from([None, 0.5, float("nan")]),
    "quality": st.sampled_from([None, "best", "worst"]),
    "rerank": st.sampled_from([None, "none", "late_interaction", "other"]),
    "include_superseded": st.sampled_from([False, True, 1]),
    "direction": st.sampled_from(["both", "causes", "sideways"]),
}


class Captured(Exception):
    """Raised in place of running the recall, carrying the request it was given."""

    def __init__(self, request: RecallRequest) -> None:
        super().__init__("captured")
        self.request = request


def outcome(call: Any) -> tuple[str, Any]:
    """What a call did: the request it would run, or the error it raised and its field."""
    try:
        call()
    except Captured as captured:
        return "request", captured.request
    except hebbs.InvalidInputError as error:
        return type(error).__name__, error.field
    raise AssertionError("the call neither built a request nor raised")


def same_request(a: RecallRequest, b: RecallRequest) -> bool:
    if a.model_fields_set != b.model_fields_set:
        return False
    for name in RecallRequest.model_fields:
        left, right = getattr(a, name), getattr(b, name)
        if isinstance(left, np.ndarray) or isinstance(right, np.ndarray):
            if not (isinstance(left, np.ndarray) and isinstance(right, np.ndarray)):
                return False
            if left.dtype != right.dtype or not np.array_equal(left, right):
                return False
        elif left != right:
            return False
    return True


@pytest.fixture
def captured_mem(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> hebbs.Hebbs:
    """A store whose recalls stop where the request is built (both ways meet there)."""

    def capture(member: hebbs.Hebbs, organization: object, request: RecallRequest) -> None:
        raise Captured(request)

    monkeypatch.setattr(hebbs.engine, "recall_with", capture)
    return hebbs.Hebbs.open(tmp_path / "db", embedder=lambda texts: np.ones((len(texts), DIM)))


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.fixed_dictionaries({}, optional=VALUES), st.integers(0, len(POSITIONAL)))
def test_keywords_build_the_request_the_body_builds(
    captured_mem: hebbs.Hebbs, arguments: dict[str, Any], positional: int
) -> None:
    by_keyword = outcome(lambda: captured_mem.recall(**arguments))
    # The first `positional` parameters by position (their defaults where not given), which
    # sends the call through the method's own body.
    leading = [
        arguments.get(name, PARAMETERS[name].default) for name in POSITIONAL[: max(positional, 1)]
    ]
    rest = {
        name: value for name, value in arguments.items() if name not in POSITIONAL[: len(leading)]
    }
    by_body = outcome(lambda: captured_mem.recall(*leading, **rest))
    assert by_keyword[0] == by_body[0], (by_keyword, by_body)
    if by_keyword[0] == "request":
        assert same_request(by_keyword[1], by_body[1])
    else:
        assert by_keyword[1] == by_body[1]


def test_a_default_object_given_by_keyword_counts_as_not_given(captured_mem: hebbs.Hebbs) -> None:
    kind, request = outcome(lambda: captured_mem.recall("x", strategies=None, quality="best"))
    assert kind == "request"
    kind, by_keyword = outcome(
        lambda: captured_mem.recall(cue="x", strategies=None, quality="best")
    )
    assert kind == "request"
    assert "strategies" not in by_keyword.model_fields_set
    assert same_request(request, by_keyword)


def test_an_unknown_keyword_is_a_type_error(captured_mem: hebbs.Hebbs) -> None:
    with pytest.raises(TypeError, match="top_kk") as raised:
        captured_mem.recall(cue="x", top_kk=3)
    assert not isinstance(raised.value, hebbs.HebbsError), "Python's own error, as for any method"
    with pytest.raises(TypeError, match="positional"):
        captured_mem.recall(*([None] * (len(POSITIONAL) + 1)))


def test_both_ways_recall_the_same_memories(mem: hebbs.Hebbs) -> None:
    for i in range(20):
        mem.remember(f"note {i} about the shipment", entity_id="acme")
    weights = hebbs.ScoringWeights(1.0, 0.0, 0.0, 0.0)
    by_keyword = mem.recall(
        cue="shipment", strategies=["similarity"], top_k=5, scoring_weights=weights
    )
    by_position = mem.recall("shipment", ["similarity"], 5, None, None, None, weights)
    assert [r.memory.id for r in by_keyword.results] == [r.memory.id for r in by_position.results]
    assert len(by_keyword.results) == 5
