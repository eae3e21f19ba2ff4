"""What the reflection operations return, each with ``to_dict`` / ``from_dict`` (the JSON form
the server sends and the client reads, as the native result types have):

- :class:`ReflectResult`: the four counts of seed 003.
- :class:`Insight`: an insight memory with its confidence, its sources and whether it is stale
  (a source was revised since).
- :class:`ReflectSession`: what ``reflect_prepare`` hands an agent host: its clusters, their
  memories and the exact prompts.
- :class:`CommitResult`: what ``reflect_commit`` stored.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hebbs._native import Memory


@dataclass(frozen=True)
class ReflectResult:
    """seed 003 ``ReflectResult``."""

    insights_created: int
    clusters_found: int
    clusters_processed: int
    memories_processed: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "insights_created": self.insights_created,
            "clusters_found": self.clusters_found,
            "clusters_processed": self.clusters_processed,
            "memories_processed": self.memories_processed,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ReflectResult:
        return cls(
            int(data["insights_created"]),
            int(data["clusters_found"]),
            int(data["clusters_processed"]),
            int(data["memories_processed"]),
        )


@dataclass(frozen=True)
class Insight:
    """An ``insight`` memory: ``confidence`` 0..1, ``source_ids`` (hex) of its ``insight_from``
    edges, ``stale`` when one of them was revised after the insight was made."""

    memory: Memory
    confidence: float
    source_ids: list[str]
    stale: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "memory": self.memory.to_dict(),
            "confidence": self.confidence,
            "source_ids": list(self.source_ids),
            "stale": self.stale,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Insight:
        return cls(
            Memory.from_dict(data["memory"]),
            float(data["confidence"]),
            [str(id) for id in data["source_ids"]],
            bool(data["stale"]),
        )


@dataclass(frozen=True)
class PreparedCluster:
    """One cluster of a session: its memories (most central first) and the proposal prompt a
    host's model answers; the model cites memories by their ids."""

    index: int
    memories: list[Memory]
    system: str
    prompt: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "memories": [memory.to_dict() for memory in self.memories],
            "system": self.system,
            "prompt": self.prompt,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PreparedCluster:
        return cls(
            int(data["index"]),
            [Memory.from_dict(memory) for memory in data["memories"]],
            str(data["system"]),
            str(data["prompt"]),
        )


@dataclass(frozen=True)
class ReflectSession:
    """What ``reflect_prepare`` returns: commit its insights with ``reflect_commit(session_id,
    ...)`` before ``expires_at`` (microseconds since the epoch)."""

    session_id: str
    expires_at: int
    entity_id: str | None
    clusters: list[PreparedCluster]
    memories_processed: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "session_id": self.session_id,
            "expires_at": self.expires_at,
            "entity_id": self.entity_id,
            "clusters": [cluster.to_dict() for cluster in self.clusters],
            "memories_processed": self.memories_processed,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ReflectSession:
        return cls(
            str(data["session_id"]),
            int(data["expires_at"]),
            data["entity_id"],
            [PreparedCluster.from_dict(cluster) for cluster in data["clusters"]],
            int(data["memories_processed"]),
        )


@dataclass(frozen=True)
class CommitResult:
    """What ``reflect_commit`` stored: the new insight memories, in input order."""

    insights_created: int
    insights: list[Memory]

    def to_dict(self) -> dict[str, Any]:
        return {
            "insights_created": self.insights_created,
            "insights": [memory.to_dict() for memory in self.insights],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CommitResult:
        return cls(
            int(data["insights_created"]),
            [Memory.from_dict(memory) for memory in data["insights"]],
        )
