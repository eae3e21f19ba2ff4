"""``hebbs demo``: remembers the bundled sample of an agent's conversations in one batch, then
runs recall queries that show the default recall on a paraphrase, an entity's timeline,
entity-scoped similarity, and pure-relevance against recency-biased weights above a relevance
floor, printing scores and strategy details for each. Each heading says what its ranking shows;
``tests/test_demo.py`` checks every one against the printed table."""

from __future__ import annotations

import argparse
import contextlib
import json
import shlex
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from importlib import resources
from typing import Any, Final

from hebbs.api import RecallRequest
from hebbs.cli import format as fmt
from hebbs.cli.commands import CommandOutput, ran, scoring_weights
from hebbs.cli.errors import UsageError
from hebbs.cli.parser import PROG
from hebbs.cli.values import RECENCY_WEIGHTS, WEIGHT_NAMES, Weights, format_weights, to_micros
from hebbs.engine import Hebbs
from hebbs.types import RecallOutput, RememberItem

#: Package holding the sample and its path inside the package.
SAMPLE_PACKAGE: Final = "hebbs.cli"
SAMPLE_PATH: Final = ("data", "demo_conversations.json")
#: Keys every sample memory has.
SAMPLE_KEYS: Final = frozenset({"content", "entity_id", "importance", "context", "days_ago"})
#: Results shown per demo query.
DEMO_TOP_K: Final = 3
#: Results of the timeline query and of the two weighting queries: weights re-rank the
#: candidates a strategy found, so those two need a few more to show the change.
LONGER_TOP_K: Final = 5
#: Weights that rank by relevance alone.
RELEVANCE_WEIGHTS: Final[Weights] = (1.0, 0.0, 0.0, 0.0)
#: The cue of the two weighting queries.
OUTAGE_CUE: Final = "When did the service go down?"
#: The relevance floor of the two weighting queries: only memories about the cue compete, so
#: the weights re-rank outages rather than the newest memories of any kind.
OUTAGE_FLOOR: Final = 0.2
#: Prefix of the temporary store's directory name.
TEMP_PREFIX: Final = "hebbs-demo-"


@dataclass(frozen=True)
class DemoQuery:
    """One demo recall and the one-line heading that says what it demonstrates."""

    heading: str
    query: RecallRequest

    def command_line(self) -> str:
        """The ``hebbs recall`` command that runs the same query."""
        query = self.query
        words = [PROG, "recall"]
        if query.cue is not None:
            words.append(query.cue)
        for strategy in query.strategies or ():
            words += ["--strategy", strategy]
        if query.entity_id is not None:
            words += ["--entity-id", query.entity_id]
        weights = query.scoring_weights
        if weights is not None:
            words += ["--weights", format_weights(tuple(weights[name] for name in WEIGHT_NAMES))]
        if query.min_relevance is not None:
            words += ["--min-relevance", f"{query.min_relevance:g}"]
        words += ["--top-k", str(query.top_k)]
        return shlex.join(words)


#: The queries, in the order the demo runs them.
DEMO_QUERIES: Final = (
    DemoQuery(
        "the default recall on a paraphrase: 'a price cut for a multi-year commitment' finds "
        "the CFO's '15% discount for a three-year contract', first by relevance and by score",
        RecallRequest(
            cue="Which account asked for a price cut in exchange for a multi-year commitment?",
            top_k=DEMO_TOP_K,
        ),
    ),
    DemoQuery(
        "temporal: globex's timeline, newest first, from the (entity_id, created_at) index; "
        "no cue needed",
        RecallRequest(cue=None, strategies=("temporal",), entity_id="globex", top_k=LONGER_TOP_K),
    ),
    DemoQuery(
        "similarity scoped to entity maya: only her memories compete, and her rule that she "
        "approves every pricing exception ranks first",
        RecallRequest(
            cue="Who must approve a discount for a customer?",
            strategies=("similarity",),
            entity_id="maya",
            top_k=DEMO_TOP_K,
        ),
    ),
    DemoQuery(
        f"pure relevance weights {format_weights(RELEVANCE_WEIGHTS)} above a relevance floor of "
        f"{OUTAGE_FLOOR:g}: the closest match ranks first, though it is over a month old",
        RecallRequest(
            cue=OUTAGE_CUE,
            strategies=("similarity",),
            top_k=LONGER_TOP_K,
            scoring_weights=scoring_weights(RELEVANCE_WEIGHTS),
            min_relevance=OUTAGE_FLOOR,
        ),
    ),
    DemoQuery(
        f"the same cue and floor with recency-biased weights {format_weights(RECENCY_WEIGHTS)} "
        "(seed 000's time-ordered view): this week's outage and timeouts overtake the closer "
        "but older ones",
        RecallRequest(
            cue=OUTAGE_CUE,
            strategies=("similarity",),
            top_k=LONGER_TOP_K,
            scoring_weights=scoring_weights(RECENCY_WEIGHTS),
            min_relevance=OUTAGE_FLOOR,
        ),
    ),
)


def demo(args: argparse.Namespace) -> CommandOutput:
    """Runs the demo in ``--db`` (empty or new) or in a temporary store."""
    started = time.perf_counter()
    sample = load_sample()
    db: str | None = args.db
    with _store(db) as (engine, location):
        remember_started = time.perf_counter()
        engine.remember_many(sample_items(sample, datetime.now(timezone.utc)))
        remember_seconds = time.perf_counter() - remember_started
        outputs = [engine.run(item.query) for item in DEMO_QUERIES]
    entities = sorted({str(memory["entity_id"]) for memory in sample})
    seconds = time.perf_counter() - started
    payload: fmt.JsonObject = {
        "store": db,
        "memories": len(sample),
        "entities": entities,
        "remember_seconds": round(remember_seconds, 3),
        "seconds": round(seconds, 3),
        "queries": [_query_json(item, output) for item, output in zip(DEMO_QUERIES, outputs)],
    }
    header = _header(len(sample), entities, remember_seconds, location)
    sections = [
        _query_text(number, item, output)
        for number, (item, output) in enumerate(zip(DEMO_QUERIES, outputs), start=1)
    ]
    footer = f"done in {seconds:.2f} s"
    return CommandOutput(payload, "\n\n".join([header, *sections, footer]))


def load_sample() -> list[dict[str, Any]]:
    """The bundled sample memories, read through importlib.resources (works from a wheel)."""
    resource = resources.files(SAMPLE_PACKAGE).joinpath(*SAMPLE_PATH)
    document = json.loads(resource.read_text(encoding="utf-8"))
    memories: list[dict[str, Any]] = document["memories"]
    for i, memory in enumerate(memories):
        missing = SAMPLE_KEYS - set(memory)
        if missing:
            raise ValueError(f"sample memory {i} lacks {sorted(missing)}")
    return memories


def sample_items(sample: Sequence[Mapping[str, Any]], now: datetime) -> list[RememberItem]:
    """``remember_many`` items of the sample, ``days_ago`` turned into ``created_at``."""
    return [
        RememberItem(
            content=memory["content"],
            entity_id=memory["entity_id"],
            importance=memory["importance"],
            context=memory["context"],
            created_at=to_micros(now - timedelta(days=memory["days_ago"])),
        )
        for memory in sample
    ]


@contextlib.contextmanager
def _store(db: str | None) -> Iterator[tuple[Hebbs, str]]:
    """The open engine and a description of where it lives."""
    with contextlib.ExitStack() as stack:
        path = db if db is not None else stack.enter_context(_temporary_directory())
        engine = stack.enter_context(Hebbs.open(path))
        if db is None:
            yield engine, f"a temporary store, removed afterwards: {path}"
            return
        count = engine.health().memory_count
        if count:
            raise UsageError(
                "--db", f"{db} already holds {count} memories; give an empty or new directory"
            )
        yield engine, db


def _temporary_directory() -> tempfile.TemporaryDirectory[str]:
    return tempfile.TemporaryDirectory(prefix=TEMP_PREFIX)


def _header(count: int, entities: Sequence[str], seconds: float, location: str) -> str:
    weights = ":".join(name.removeprefix("w_") for name in WEIGHT_NAMES)
    return "\n".join(
        [
            f"{PROG} demo: {count} memories from an agent's last two months "
            f"(entities: {', '.join(entities)})",
            f"remembered with one remember_many batch in {seconds:.2f} s, in {location}",
            f"score = composite of {weights}; the default recall shows its re-rank score and "
            "late interaction, similarity rel (cosine) and dist, temporal its rank (0 = newest)",
        ]
    )


def _query_text(number: int, item: DemoQuery, output: RecallOutput) -> str:
    heading = f"[{number}/{len(DEMO_QUERIES)}] {item.heading}"
    table = fmt.recall_text(output, item.query.strategies or ran(output))
    return "\n".join([heading, f"$ {item.command_line()}", table])


def _query_json(item: DemoQuery, output: RecallOutput) -> fmt.JsonObject:
    payload = fmt.recall_json(output)
    payload["heading"] = item.heading
    payload["command"] = item.command_line()
    return payload
