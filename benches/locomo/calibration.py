"""How the default recall turns the re-rank stage's score into seed 000's relevance signal, and
what reinforcement does over repeated recalls: the measurements behind the per-query min-max
calibration (``crates/hebbs-core/src/recall/rerank/calibration.rs``) and the reinforcement
rule (``scoring.rs``), docs/hybrid.md.

For every LoCoMo dev question (categories 1-4) it records the re-ranked head of
``recall(q, top_k=150, quality="best")``: each candidate's stage score (``scores["rerank"]``)
and whether it is a gold evidence turn. The stage reads every neighbour when ``top_k`` is the
head's size, so each score is exact, and which candidates reach the head does not depend on the
access counts (the head is the first stage's most relevant), so the composite and the counts
can be replayed offline, exactly:

- a logistic regression of "gold" on the stage score (Platt scaling), one calibration tried;
- the calibrations compared under seed 000's default weights (the engine's min-max takes the
  head's lowest score before the neighbour signals as its floor; here the lowest total), with
  the conversations' dates as they are (every memory older than 30 days: recency 0 for all)
  and moved so each conversation's last session is today (recency spreads over the last 30
  days);
- the reinforcement rules compared over two passes of the questions, each starting from no
  access counts: the composite's order and the count each recall leaves decide pass two.

    .venv/bin/python benches/locomo_eval.py --calibration
"""

from __future__ import annotations

import math
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import hebbs
from hebbs.embedder import default_embedder

from .data import CATEGORIES, Conversation
from .one_call import TOP_K, ingest

#: Candidates recorded a question (the default head size).
HEAD = 150
#: Seed 000's default weights.
W_RELEVANCE, W_RECENCY, W_IMPORTANCE, W_REINFORCEMENT = 0.5, 0.2, 0.2, 0.1
#: Seed 000's scales: recency 0 at 30 days, reinforcement 1 at 100 recalls.
MAX_AGE_S = 30 * 24 * 3600
REINFORCEMENT_CAP = 100
#: The relevance floor of the "count confident results" rule.
CONFIDENT = 0.5
#: The engine's ``FLOOR_QUANTILE`` (``rerank/calibration.rs``). Unlike the engine, the replay
#: takes the quantile of the final scores: the engine takes it of the scores before the
#: neighbour signals (about 0.1 lower), which the replay does not record, so the engine's own
#: figures come from ``--one-call``.
FLOOR_QUANTILE = 0.75


@dataclass
class Head:
    conversation: str
    category: int
    gold: frozenset[str]
    turns: list[str]
    stage: np.ndarray
    age_s: np.ndarray


def record(conversations: list[Conversation]) -> list[Head]:
    """The re-ranked head of every question, from stores ingested like a user's."""
    embedder = default_embedder()
    heads: list[Head] = []
    with tempfile.TemporaryDirectory(prefix="hebbs-locomo-calibration-") as root:
        for conversation in conversations:
            with hebbs.Hebbs.open(Path(root) / conversation.sample_id, embedder=embedder) as mem:
                ids = ingest(mem, conversation)
                turn_of = dict(zip(ids, conversation.turns))
                last = max(turn.created_at for turn in conversation.turns)
                for question in conversation.questions:
                    output = mem.recall(question.text, top_k=HEAD, quality="best")
                    turns = [turn_of[r.memory.id] for r in output.results]
                    heads.append(
                        Head(
                            conversation.sample_id,
                            question.category,
                            question.gold,
                            [turn.dia_id for turn in turns],
                            np.array([r.scores.get("rerank", 0.0) for r in output.results]),
                            np.array([(last - t.created_at).total_seconds() for t in turns]),
                        )
                    )
            print(f"{conversation.sample_id}: recorded", file=sys.stderr)
    return heads


def fit(heads: Sequence[Head]) -> tuple[float, float]:
    """Midpoint and slope of the logistic regression of "gold" on the stage score (Newton's
    method on the log-likelihood)."""
    x = np.concatenate([head.stage for head in heads])
    y = np.concatenate([[turn in head.gold for turn in head.turns] for head in heads]).astype(float)
    a, b = 0.0, 0.0
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-(a + b * x)))
        w = p * (1.0 - p)
        gradient = np.array([np.sum(y - p), np.sum((y - p) * x)])
        hessian = np.array([[np.sum(w), np.sum(w * x)], [np.sum(w * x), np.sum(w * x * x)]])
        step = np.linalg.solve(hessian, gradient)
        a, b = a + step[0], b + step[1]
        if np.max(np.abs(step)) < 1e-9:
            break
    return -a / b, b


Calibration = Callable[[np.ndarray], np.ndarray]


def calibrations(midpoint: float, slope: float) -> dict[str, Calibration]:
    """The maps from the stage score to relevance that are compared."""

    def platt(x: np.ndarray) -> np.ndarray:
        return 1.0 / (1.0 + np.exp(-slope * (x - midpoint)))

    def min_max(x: np.ndarray) -> np.ndarray:
        spread = x.max() - x.min()
        return (x - x.min()) / spread if spread > 0 else np.ones_like(x)

    def typical_floor(x: np.ndarray) -> np.ndarray:
        floor = np.quantile(x, FLOOR_QUANTILE, method="lower")
        spread = x.max() - floor
        return np.clip((x - floor) / spread, 0.0, 1.0) if spread > 0 else np.ones_like(x)

    def linear(x: np.ndarray) -> np.ndarray:
        return np.clip(x / 1.85, 0.0, 1.0)

    return {
        "min-max, floor at the head's upper quartile (as the engine)": typical_floor,
        "min-max, floor at the head's lowest score (Generative Agents)": min_max,
        f"logistic (Platt; midpoint {midpoint:.3f}, slope {slope:.2f})": platt,
        "linear, score / 1.85 (the score's bound)": linear,
    }


def recall_at(head: Head, order: np.ndarray) -> float:
    top = {head.turns[i] for i in order[:TOP_K]}
    return len(head.gold & top) / len(head.gold)


def reinforcement(count: np.ndarray) -> np.ndarray:
    return np.minimum(np.log2(1.0 + count) / math.log2(1.0 + REINFORCEMENT_CAP), 1.0)


@dataclass(frozen=True)
class Rule:
    """A reinforcement rule: whether the term is gated by relevance, and which returned
    results a recall counts."""

    gated: bool
    counts: Callable[[np.ndarray], np.ndarray]


RULES: dict[str, Rule] = {
    "seed 000 as written: every result counted, term ungated": Rule(
        False, lambda rel: np.ones_like(rel, dtype=bool)
    ),
    f"count results with relevance >= {CONFIDENT}, term ungated": Rule(
        False, lambda rel: rel >= CONFIDENT
    ),
    "every result counted, term gated by relevance": Rule(
        True, lambda rel: np.ones_like(rel, dtype=bool)
    ),
    f"count results with relevance >= {CONFIDENT}, term gated": Rule(
        True, lambda rel: rel >= CONFIDENT
    ),
    "no counting by recall (an explicit reinforce only)": Rule(
        False, lambda rel: np.zeros_like(rel, dtype=bool)
    ),
}


def replay(heads: Sequence[Head], calibrate: Calibration, rule: Rule, shifted: bool) -> list:
    """R@10 of each pass (overall and by category) under seed 000's default weights."""
    counts: dict[tuple[str, str], float] = {}
    passes = []
    for _ in range(2):
        by_category: dict[int, list[float]] = {c: [] for c in CATEGORIES}
        for head in heads:
            relevance = calibrate(head.stage)
            recency = (
                np.clip(1.0 - head.age_s / MAX_AGE_S, 0.0, 1.0)
                if shifted
                else np.zeros_like(relevance)
            )
            count = np.array([counts.get((head.conversation, t), 0.0) for t in head.turns])
            term = reinforcement(count) * (relevance if rule.gated else 1.0)
            score = W_RELEVANCE * relevance + W_RECENCY * recency + W_REINFORCEMENT * term
            order = np.argsort(-score, kind="stable")
            by_category[head.category].append(recall_at(head, order))
            returned = order[:TOP_K]
            for i in returned[rule.counts(relevance[returned])]:
                key = (head.conversation, head.turns[i])
                counts[key] = counts.get(key, 0.0) + 1
        everything = [r for values in by_category.values() for r in values]
        passes.append(
            (
                float(np.mean(everything)),
                {c: float(np.mean(v)) for c, v in by_category.items() if v},
            )
        )
    return passes


def report(conversations: list[Conversation]) -> None:
    started = time.perf_counter()
    heads = record(conversations)
    print(f"recorded {len(heads)} heads in {time.perf_counter() - started:.0f} s\n")
    midpoint, slope = fit(heads)
    print(f"Platt fit: midpoint {midpoint:.4f}, slope {slope:.3f}\n")
    stage_only = [recall_at(h, np.argsort(-h.stage, kind="stable")) for h in heads]
    print(f"stage order alone (quality='best'): R@10 {np.mean(stage_only):.3f}\n")
    names = ", ".join(CATEGORIES.values())
    print(f"| calibration | dates | R@10 pass 1 | pass 2 | {names} (pass 1) |")
    print("| --- | --- | ---: | ---: | " + "---: | " * len(CATEGORIES))
    gated = RULES["every result counted, term gated by relevance"]
    for name, calibrate in calibrations(midpoint, slope).items():
        for shifted in (False, True):
            (first, cats), (second, _) = replay(heads, calibrate, gated, shifted)
            dates = "last session today" if shifted else "as recorded"
            cells = " | ".join(f"{cats[c]:.3f}" for c in CATEGORIES)
            print(f"| {name} | {dates} | {first:.3f} | {second:.3f} | {cells} |")
    engine = next(iter(calibrations(midpoint, slope).values()))
    print(f"\n| reinforcement rule (first calibration) | R@10 pass 1 | pass 2 | {names} (pass 2) |")
    print("| --- | ---: | ---: | " + "---: | " * len(CATEGORIES))
    for name, rule in RULES.items():
        (first, _), (second, cats) = replay(heads, engine, rule, False)
        cells = " | ".join(f"{cats[c]:.3f}" for c in CATEGORIES)
        print(f"| {name} | {first:.3f} | {second:.3f} | {cells} |")
