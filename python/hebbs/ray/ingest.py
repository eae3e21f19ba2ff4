"""``ingest``: bulk embedding and ingest on Ray Data.

``ingest(dataset, url_or_path, text_column="text", ...)`` runs ``map_batches`` over the dataset
with :data:`DEFAULT_INGEST_WORKERS` actors (``workers=``), each of which loads the bundled
model once (its constructor) and embeds its batches with it: the vectors and, from the same
pass, the int8 token vectors that ``quality="best"`` re-ranks with, as ``remember_many`` stores
them. Against a server or a cluster
(a URL and its tenant's ``api_key``) each worker also writes its batches, straight to the
tenant's store through ``POST /v1/import`` with the vectors it made; against a store on disk (a
path) the workers embed and the driver writes, since one process holds a store.

Idempotent: every row gets an id from its ``id_column`` (when given) or from a hash of its
content, entity and context (a UUIDv8 of BLAKE2b), so identical rows are one memory. Before it
embeds, a worker asks the store which of its batch's ids it holds (``POST /v1/memories/batch``)
and writes only the others, so a retried batch, a rerun or a second worker never writes a row
twice. Resumable: with ``checkpoint=PATH`` the driver records each batch once its rows are
written (the batch's key is a hash of its ids); a rerun skips those batches without reading the
store, and a batch that was written but not recorded is found in the store and skipped there.
Writes refused with a 503 (a tenant being moved, a shard restarting) are retried after their
``Retry-After`` for :data:`INGEST_RETRY_S`.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Union

import httpx
import numpy as np
from numpy.typing import NDArray

from hebbs import jsonwire
from hebbs._native import DEFAULT_IMPORTANCE
from hebbs.client.errors import error_from_response
from hebbs.client.settings import headers as client_headers
from hebbs.embedder import BUNDLED_MODEL_ID, OnnxEmbedder, default_embedder
from hebbs.embedder.token_vectors import quantize_int8
from hebbs.engine import Hebbs, TokenPair
from hebbs.errors import ConflictError
from hebbs.transfer.format import FORMAT_NAME, FORMAT_VERSION, token_vectors_line
from hebbs.transfer.importer import validate, write

#: A batch's vectors and each row's ``(codes, scales)`` token vectors.
Embedded = tuple[NDArray[np.float32], list[TokenPair]]

#: Rows embedded and written per batch.
DEFAULT_INGEST_BATCH: Final = 256
#: Ray Data actors that embed (and write) at once.
DEFAULT_INGEST_WORKERS: Final = 2
#: Seconds a worker keeps retrying writes answered 503 (or a server it cannot reach).
INGEST_RETRY_S: Final = 120.0
#: Seconds one write request may take.
INGEST_TIMEOUT_S: Final = 300.0
#: The checkpoint file's format version.
CHECKPOINT_VERSION: Final = 1

#: What ``ingest`` takes as a dataset: a Ray Dataset, or rows Ray Data can make one of.
DatasetLike = Any


@dataclass(frozen=True)
class Columns:
    """Which columns of the dataset make a memory."""

    text: str = "text"
    entity: str | None = None
    id: str | None = None
    context: tuple[str, ...] = ()


@dataclass
class IngestResult:
    """What an ingest did: rows seen, memories written, rows skipped (in the store already or
    in a batch of the checkpoint), batches, batches skipped by the checkpoint, and the worker
    processes that loaded the model (one load each)."""

    rows: int = 0
    written: int = 0
    skipped: int = 0
    batches: int = 0
    checkpointed: int = 0
    workers: set[int] = field(default_factory=set)
    seconds: float = 0.0


def row_id(columns: Columns, row: Mapping[str, Any]) -> str:
    """The id of ``row``: of its id column's value, else of its content, entity and context."""
    if columns.id is not None:
        material = "id\x00" + str(row[columns.id])
    else:
        material = json.dumps(
            [row["content"], row["entity_id"], row["context"]], sort_keys=True, ensure_ascii=False
        )
    digest = bytearray(
        hashlib.blake2b(material.encode(), digest_size=16, person=b"hebbs-ingest").digest()
    )
    digest[6] = (digest[6] & 0x0F) | 0x80
    digest[8] = (digest[8] & 0x3F) | 0x80
    return digest.hex()


def batch_key(ids: Sequence[str]) -> str:
    """The key of a batch in the checkpoint: a hash of its ids in order."""
    return hashlib.sha256("".join(ids).encode()).hexdigest()[:32]


def _value(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


def batch_rows(columns: Columns, batch: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The rows of a numpy batch as memory fields (with ``id``), duplicates of an id dropped."""
    texts = batch[columns.text]
    rows: list[dict[str, Any]] = []
    seen: set[str] = set()
    for index in range(len(texts)):
        content = _value(texts[index])
        if not isinstance(content, str):
            raise ValueError(f"{columns.text}: row {index} is {content!r}, not a text")
        entity = None if columns.entity is None else _value(batch[columns.entity][index])
        context = {name: _value(batch[name][index]) for name in columns.context}
        row = {"content": content, "entity_id": entity, "context": context}
        if columns.id is not None:
            row[columns.id] = _value(batch[columns.id][index])
        id = row_id(columns, row)
        row.pop(columns.id or "", None)
        if id not in seen:
            seen.add(id)
            rows.append({"id": id, **row})
    return rows


def embedded(model: OnnxEmbedder, texts: list[str]) -> Embedded:
    """``model``'s vectors of ``texts`` and their int8 token vectors, from one pass."""
    pooled, tokens = model.embed_with_tokens(texts)
    return pooled, [quantize_int8(matrix) for matrix in tokens]


def export_lines(rows: Sequence[Mapping[str, Any]], made: Embedded) -> list[bytes]:
    """``rows`` with their vectors and token vectors as an export file
    (:mod:`hebbs.transfer.format`)."""
    vectors, tokens = made
    now = int(time.time() * 1_000_000)
    lines = [
        jsonwire.dumps(
            {
                "type": "header",
                "format": FORMAT_NAME,
                "version": FORMAT_VERSION,
                "dimension": int(vectors.shape[1]),
                "model": BUNDLED_MODEL_ID,
                "embeddings": True,
            }
        )
    ]
    for row, vector, pair in zip(rows, vectors, tokens):
        memory = {
            "type": "memory",
            "id": row["id"],
            "content": row["content"],
            "importance": DEFAULT_IMPORTANCE,
            "context": row["context"],
            "entity_id": row["entity_id"],
            "created_at": now,
            "updated_at": now,
            "last_accessed_at": now,
            "access_count": 0,
            "kind": "episode",
            "superseded": False,
            "embedding": vector,
            "token_vectors": token_vectors_line(*pair),
        }
        lines.append(jsonwire.dumps(memory))
    end = {"type": "end", "memories": len(rows), "edges": 0, "tombstones": 0}
    lines.append(jsonwire.dumps(end))
    return lines


class _Remote:
    """A worker's connection to a server or cluster: existence checks and imports, 503s
    retried."""

    def __init__(self, url: str, api_key: str | None) -> None:
        self.http = httpx.Client(
            base_url=url.rstrip("/"), headers=client_headers(api_key), timeout=INGEST_TIMEOUT_S
        )

    def _request(self, method: str, path: str, **options: Any) -> Any:
        deadline = time.monotonic() + INGEST_RETRY_S
        while True:
            wait = 1.0
            try:
                answer = self.http.request(method, path, **options)
                if answer.status_code < 300:
                    return answer.json()
                if answer.status_code != 503:
                    raise error_from_response(answer.status_code, answer.json(), answer.headers)
                wait = float(answer.headers.get("retry-after", wait))
            except (httpx.ConnectError, httpx.ConnectTimeout):
                pass
            if time.monotonic() + wait > deadline:
                raise RuntimeError(f"{method} {path}: the server kept refusing (503)")
            time.sleep(wait)

    def missing(self, ids: Sequence[str]) -> list[bool]:
        found = self._request(
            "POST",
            "/v1/memories/batch",
            content=jsonwire.dumps({"ids": ids}),
            headers={"content-type": "application/json"},
        )
        return [memory is None for memory in found]

    def write(self, lines: list[bytes]) -> int:
        body = b"\n".join(lines) + b"\n"
        counts = self._request(
            "POST", "/v1/import", content=body, headers={"content-type": "application/x-ndjson"}
        )
        return int(counts["memories"])


class IngestWorker:
    """One Ray Data actor: loads the bundled model once, then embeds (and with a URL writes)
    each batch it is given."""

    def __init__(
        self,
        columns: Columns,
        url: str | None,
        api_key: str | None,
        done: frozenset[str],
    ) -> None:
        self.embedder = default_embedder()
        self.columns = columns
        self.remote = None if url is None else _Remote(url, api_key)
        self.done = done

    def __call__(self, batch: dict[str, Any]) -> dict[str, Any]:
        rows = batch_rows(self.columns, batch)
        ids = [row["id"] for row in rows]
        key = batch_key(ids)
        summary: dict[str, Any] = {
            "batch": [key],
            "rows": [len(rows)],
            "written": [0],
            "checkpointed": [key in self.done],
            "pid": [os.getpid()],
            "lines": [b""],
        }
        if key in self.done or not rows:
            return summary
        if self.remote is None:
            made = embedded(self.embedder, [row["content"] for row in rows])
            summary["lines"] = [b"\n".join(export_lines(rows, made))]
            return summary
        missing = self.remote.missing(ids)
        todo = [row for row, absent in zip(rows, missing) if absent]
        if todo:
            made = embedded(self.embedder, [row["content"] for row in todo])
            try:
                written = self.remote.write(export_lines(todo, made))
            except ConflictError:
                # Another writer stored some of these ids since the check: write the rest.
                still = self.remote.missing([row["id"] for row in todo])
                keep = [i for i, absent in enumerate(still) if absent]
                written = 0
                if keep:
                    pooled, tokens = made
                    kept = (pooled[keep], [tokens[i] for i in keep])
                    lines = export_lines([todo[i] for i in keep], kept)
                    written = self.remote.write(lines)
            summary["written"] = [written]
        return summary


def _load_checkpoint(path: Path | None, target: str) -> set[str]:
    if path is None or not path.exists():
        return set()
    data = json.loads(path.read_text(encoding="utf-8"))
    if data.get("version") != CHECKPOINT_VERSION or data.get("target") != target:
        raise ValueError(f"checkpoint {path} is of another ingest (target {data.get('target')})")
    return set(data["batches"])


def _save_checkpoint(path: Path, target: str, batches: set[str]) -> None:
    temporary = path.with_suffix(path.suffix + ".tmp")
    data = {"version": CHECKPOINT_VERSION, "target": target, "batches": sorted(batches)}
    temporary.write_text(json.dumps(data), encoding="utf-8")
    os.replace(temporary, path)


def _write_local(engine: Hebbs, lines: bytes) -> int:
    """Writes the memories of an export batch that ``engine`` lacks; the count written."""
    text = lines.decode("utf-8").splitlines()
    rows = [jsonwire.loads(line) for line in text[1:-1]]
    found = engine.get_many([row["id"] for row in rows])
    keep = [line for line, memory in zip(text[1:-1], found) if memory is None]
    if not keep:
        return 0
    end = json.dumps({"type": "end", "memories": len(keep), "edges": 0, "tombstones": 0})
    body = [text[0], *keep, end]
    validate(engine, body)
    return write(engine, lambda: body).memories


def as_dataset(dataset: DatasetLike) -> Any:
    """``dataset`` as a Ray Dataset: one already, or a list of row dicts, or a pandas frame."""
    import ray.data

    if isinstance(dataset, ray.data.Dataset):
        return dataset
    if hasattr(dataset, "to_dict") and hasattr(dataset, "columns"):
        return ray.data.from_pandas(dataset)
    return ray.data.from_items(list(dataset))


def ingest(
    dataset: DatasetLike,
    url_or_path: Union[str, Path],
    *,
    text_column: str = "text",
    entity_column: str | None = None,
    id_column: str | None = None,
    context_columns: Iterable[str] = (),
    api_key: str | None = None,
    batch_size: int = DEFAULT_INGEST_BATCH,
    workers: int = DEFAULT_INGEST_WORKERS,
    checkpoint: str | Path | None = None,
) -> IngestResult:
    """Embeds the rows of ``dataset`` on Ray Data and stores them as memories of the server or
    cluster at the URL ``url_or_path`` (``api_key``'s tenant) or of the store at that path.
    Ray must be initialized (``hebbs.cluster.runtime.start_ray``). See the module's text."""
    if batch_size < 1 or workers < 1:
        raise ValueError("batch_size and workers must be at least 1")
    import ray.data

    started = time.perf_counter()
    target = str(url_or_path)
    remote = target.startswith(("http://", "https://"))
    columns = Columns(text_column, entity_column, id_column, tuple(context_columns))
    checkpoint_path = None if checkpoint is None else Path(checkpoint)
    done = _load_checkpoint(checkpoint_path, target)
    worker_args = {
        "columns": columns,
        "url": target if remote else None,
        "api_key": api_key,
        "done": frozenset(done),
    }
    summaries = as_dataset(dataset).map_batches(
        IngestWorker,
        fn_constructor_kwargs=worker_args,
        batch_size=batch_size,
        batch_format="numpy",
        compute=ray.data.ActorPoolStrategy(size=workers),
        num_cpus=1,
    )
    result = IngestResult()
    engine = None if remote else Hebbs.open(target)
    try:
        for summary in summaries.iter_rows():
            rows = int(summary["rows"])
            result.rows += rows
            result.batches += 1
            result.workers.add(int(summary["pid"]))
            if summary["checkpointed"]:
                result.checkpointed += 1
                result.skipped += rows
                continue
            written = int(summary["written"])
            if engine is not None:
                written = _write_local(engine, bytes(summary["lines"]))
            result.written += written
            result.skipped += rows - written
            if checkpoint_path is not None:
                done.add(str(summary["batch"]))
                _save_checkpoint(checkpoint_path, target, done)
    finally:
        if engine is not None:
            engine.close()
    result.seconds = time.perf_counter() - started
    return result
