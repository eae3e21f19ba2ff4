"""Rendering of engine objects for the command line: JSON-ready dicts (``--json``) and the
human-readable text (key/value blocks and the ranked recall table)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from typing import Any, Final

from hebbs.cli.values import from_micros
from hebbs.types import (
    Edge,
    ForgetResult,
    HealthStatus,
    Memory,
    PrimeOutput,
    RecallOutput,
    RecallResult,
    StrategyDetail,
    StrategyError,
)

#: A JSON object as the ``json`` module writes it.
JsonObject = dict[str, Any]

#: Decimal places of scores, relevances and other fractions in text output.
FRACTION_DIGITS: Final = 3
#: Decimal places of floats in JSON output (the engine stores f32: more digits are noise).
JSON_FLOAT_DIGITS: Final = 6
#: Terminal width assumed when stdout is not a terminal.
FALLBACK_COLUMNS: Final = 120
#: The content column never gets narrower than this.
MIN_CONTENT_WIDTH: Final = 30
#: Marks truncated content.
ELLIPSIS: Final = "..."
#: Gap between table columns.
COLUMN_GAP: Final = "  "
#: Time format of the table and the key/value blocks (always UTC).
TIME_FORMAT: Final = "%Y-%m-%d %H:%M:%S"
#: Entries of an embedding shown in text output.
EMBEDDING_PREVIEW: Final = 6


def fraction(value: float) -> str:
    """A fraction with :data:`FRACTION_DIGITS` decimals."""
    return f"{value:.{FRACTION_DIGITS}f}"


def json_float(value: float) -> float:
    """A float rounded for JSON output."""
    return round(float(value), JSON_FLOAT_DIGITS)


def utc_text(micros: int) -> str:
    """``YYYY-MM-DD HH:MM:SS`` (UTC) of microseconds since the epoch."""
    return from_micros(micros).strftime(TIME_FORMAT)


def utc_iso(micros: int) -> str:
    """ISO 8601 with a ``Z`` of microseconds since the epoch."""
    return from_micros(micros).isoformat().replace("+00:00", "Z")


def dumps(payload: Any) -> str:
    """The JSON text of ``payload``: sorted keys, UTF-8 kept readable."""
    return json.dumps(payload, ensure_ascii=False, sort_keys=True)


def truncate(text: str, width: int) -> str:
    """``text`` on one line, cut to ``width`` characters with an ellipsis."""
    flat = " ".join(text.split())
    if len(flat) <= width:
        return flat
    return flat[: max(width - len(ELLIPSIS), 0)] + ELLIPSIS


def memory_json(memory: Memory) -> JsonObject:
    """``memory``'s JSON for the terminal (:func:`terminal_json` of its wire form)."""
    payload: JsonObject = terminal_json(memory.to_dict())
    return payload


def terminal_json(value: Any) -> Any:
    """A wire form (:func:`hebbs.api.responses.wire`) as ``--json`` prints it: floats rounded
    to :data:`JSON_FLOAT_DIGITS` (the engine stores f32: more digits are noise), each memory
    with its creation time in ISO 8601 too and without an embedding it was not asked for, and
    each recall result with its rank from 1."""
    if isinstance(value, float):
        return json_float(value)
    if isinstance(value, list):
        return [terminal_json(item) for item in value]
    if not isinstance(value, dict):
        return value
    shown = {key: terminal_json(item) for key, item in value.items()}
    if "content" in shown and "created_at" in shown:
        shown["created_at_iso"] = utc_iso(shown["created_at"])
        if shown.get("embedding", 0) is None:
            del shown["embedding"]
    for rank, result in enumerate(shown.get("results", ()), start=1):
        result["rank"] = rank
    return shown


def memory_text(memory: Memory) -> str:
    """Every field of ``memory`` as aligned ``key  value`` lines."""
    rows = [
        ("id", memory.id_hex),
        ("kind", memory.kind.value),
        ("content", memory.content),
        ("entity_id", memory.entity_id or "-"),
        ("importance", fraction(memory.importance)),
        ("context", dumps(memory.context)),
        ("created_at", _time_with_micros(memory.created_at)),
        ("updated_at", _time_with_micros(memory.updated_at)),
        ("last_accessed_at", _time_or_never(memory.last_accessed_at)),
        ("access_count", str(memory.access_count)),
        ("decay_score", fraction(memory.decay_score)),
    ]
    if memory.embedding is not None:
        rows.append(("embedding", _embedding_preview(memory.embedding.tolist())))
    return key_values(rows)


def remember_text(memory: Memory, edges: Sequence[Edge]) -> str:
    """The id of a new memory, then a short summary of what was stored."""
    rows = [
        ("entity_id", memory.entity_id or "-"),
        ("importance", fraction(memory.importance)),
        ("created_at", utc_text(memory.created_at) + " UTC"),
        ("context", dumps(memory.context)),
        ("edges", _edges_text(edges)),
        ("content", truncate(memory.content, _content_budget(len("content") + 2))),
    ]
    return f"remembered {memory.id_hex}\n" + key_values(rows, indent="  ")


def edge_json(edge: Edge) -> JsonObject:
    """An edge as a JSON object."""
    return {
        "target": edge.target.hex(),
        "edge_type": edge.edge_type.value,
        "confidence": json_float(edge.confidence),
    }


def health_text(status: HealthStatus) -> str:
    """The health status as ``key  value`` lines."""
    return key_values(
        [
            ("serving", "yes" if status.serving else "no"),
            ("version", status.version),
            ("memory_count", str(status.memory_count)),
            ("uptime_seconds", str(status.uptime_seconds)),
        ]
    )


def forget_text(result: ForgetResult) -> str:
    """A forget result as ``key  value`` lines, with a hint when more remain."""
    text = key_values(
        [
            ("forgotten", str(result.forgotten_count)),
            ("cascaded", str(result.cascade_count)),
            ("tombstones", str(result.tombstone_count)),
        ]
    )
    if result.truncated:
        text += "\nmore memories match: run the same command again to continue"
    return text


def recall_json(output: RecallOutput | PrimeOutput) -> JsonObject:
    """A recall (or prime) answer as a JSON object (:func:`terminal_json`): results best first,
    with rank from 1; a prime's has no strategy errors and none below the threshold."""
    payload: JsonObject = terminal_json(output.to_dict())
    payload.setdefault("strategy_errors", [])
    payload.setdefault("below_threshold", 0)
    return payload


def _strategy_errors(output: RecallOutput | PrimeOutput) -> list[StrategyError]:
    return output.strategy_errors if isinstance(output, RecallOutput) else []


def recall_text(output: RecallOutput | PrimeOutput, strategies: Sequence[str]) -> str:
    """The ranked table of a recall: one column per strategy that ran, then the memory; last,
    how many candidates the relevance floor (``--min-relevance``) dropped, when it dropped any,
    and the organization's answer under its own heading."""
    own = _ranked_text(output, strategies)
    organization = output.organization_memory if isinstance(output, RecallOutput) else None
    if organization is None:
        return own
    return f"{own}\n\norganization memory:\n{_ranked_text(organization, strategies)}"


def _ranked_text(output: RecallOutput | PrimeOutput, strategies: Sequence[str]) -> str:
    lines = [
        f"warning: {error.strategy} failed: {error.message}" for error in _strategy_errors(output)
    ]
    dropped = output.below_threshold if isinstance(output, RecallOutput) else 0
    floor_line = f"{dropped} weaker candidates below the relevance floor left out"
    if not output.results:
        lines.append("no memories matched")
        if dropped:
            lines.append(floor_line)
        return "\n".join(lines)
    headers = ["#", "score", *strategies, "entity", "created_at (UTC)"]
    rows = [
        _result_cells(rank, result, strategies) for rank, result in enumerate(output.results, 1)
    ]
    widths = [max(len(row[i]) for row in [headers, *rows]) for i in range(len(headers))]
    content_width = _content_budget(sum(widths) + len(COLUMN_GAP) * len(widths))
    lines.append(_table_line([*headers, "content"], widths))
    for row, result in zip(rows, output.results):
        lines.append(_table_line([*row, truncate(result.memory.content, content_width)], widths))
    if dropped:
        lines.append(floor_line)
    return "\n".join(lines)


def detail_text(detail: StrategyDetail) -> str:
    """The compact text of one strategy detail: relevance and distance for similarity; for
    temporal the rank in the timeline (0 = newest), whose timestamp is the created_at column;
    for causal the hop count; for analogical both similarity components; a result the re-rank
    stage scored leads with its stage score."""
    if detail.rerank_score is not None and detail.late_interaction_score is not None:
        return f"rerank={detail.rerank_score:.4f} li={detail.late_interaction_score:.4f}"
    if detail.rank is not None:
        return f"rank={detail.rank}"
    if detail.rrf_score is not None:
        return f"rrf={detail.rrf_score:.4f}"
    if detail.bm25_score is not None:
        return f"bm25={detail.bm25_score:.2f}"
    if detail.depth is not None:
        return f"depth={detail.depth} rel={fraction(detail.relevance)}"
    if detail.structural_similarity is not None and detail.embedding_similarity is not None:
        return (
            f"rel={fraction(detail.relevance)} emb={fraction(detail.embedding_similarity)} "
            f"struct={fraction(detail.structural_similarity)}"
        )
    distance = "" if detail.distance is None else f" dist={fraction(detail.distance)}"
    return f"rel={fraction(detail.relevance)}{distance}"


def key_values(rows: Sequence[tuple[str, str]], indent: str = "") -> str:
    """Aligned ``key  value`` lines."""
    width = max(len(key) for key, _ in rows)
    return "\n".join(f"{indent}{key:<{width}}{COLUMN_GAP}{value}" for key, value in rows)


def _result_cells(rank: int, result: RecallResult, strategies: Sequence[str]) -> list[str]:
    details = {detail.strategy: detail_text(detail) for detail in result.strategy_details}
    memory = result.memory
    return [
        str(rank),
        fraction(result.score),
        *(details.get(strategy, "-") for strategy in strategies),
        memory.entity_id or "-",
        utc_text(memory.created_at),
    ]


def _table_line(cells: Sequence[str], widths: Sequence[int]) -> str:
    padded = [f"{cell:<{width}}" for cell, width in zip(cells, widths)]
    return COLUMN_GAP.join([*padded, *cells[len(widths) :]]).rstrip()


def _content_budget(used: int) -> int:
    columns = shutil.get_terminal_size((FALLBACK_COLUMNS, 24)).columns
    return max(columns - used, MIN_CONTENT_WIDTH)


def _time_with_micros(micros: int) -> str:
    return f"{utc_iso(micros)} ({micros})"


def _time_or_never(micros: int) -> str:
    return "never" if micros == 0 else _time_with_micros(micros)


def _edges_text(edges: Sequence[Edge]) -> str:
    if not edges:
        return "-"
    return ", ".join(
        f"{edge.edge_type.value} -> {edge.target.hex()} ({fraction(edge.confidence)})"
        for edge in edges
    )


def _embedding_preview(vector: Sequence[float]) -> str:
    head = ", ".join(f"{value:.4f}" for value in vector[:EMBEDDING_PREVIEW])
    more = ", ..." if len(vector) > EMBEDDING_PREVIEW else ""
    return f"[{head}{more}] (dimension {len(vector)})"
