"""Named defaults of the reflection pipeline, defined once (``docs/reflection.md`` quotes them)."""

from __future__ import annotations

from typing import Final

#: Smallest cluster that is reflected on: fewer memories are not a pattern yet.
DEFAULT_MIN_CLUSTER_SIZE: Final = 3
#: Most memories one ``reflect`` call reads after its cursor; the next call goes on from there.
DEFAULT_REFLECT_MAX_MEMORIES: Final = 10_000
#: Largest k tried by the silhouette search.
MAX_CLUSTERS: Final = 64
#: Points the silhouette of a candidate k is measured on (a fixed-seed sample of them).
SILHOUETTE_SAMPLE: Final = 1000
#: Below this best silhouette the memories are taken as one cluster.
MIN_SILHOUETTE: Final = 0.05
#: Lloyd iterations of spherical k-means (it stops earlier once assignments settle).
KMEANS_MAX_ITERATIONS: Final = 50
#: k-means++ restarts per candidate k; the one with the highest cohesion is kept.
KMEANS_RESTARTS: Final = 2
#: Seed of every random choice of the clustering, so a reflect is reproducible.
CLUSTER_SEED: Final = 13
#: Members of a cluster shown to the model (the most central ones).
MAX_PROMPT_MEMORIES: Final = 20
#: Characters of one memory shown to the model.
MAX_PROMPT_MEMORY_CHARS: Final = 500
#: Existing insights shown to the validation call (the ones nearest the cluster).
MAX_PROMPT_INSIGHTS: Final = 5
#: Insights below this confidence are not stored.
DEFAULT_MIN_CONFIDENCE: Final = 0.3
#: Cosine between a proposal's cluster and an existing insight above which the offline
#: validation merges them instead of storing a near copy.
INSIGHT_MERGE_SIMILARITY: Final = 0.9
#: Clusters proposed and validated at once (each one a thread; the provider's own concurrency
#: limit still applies).
DEFAULT_REFLECT_WORKERS: Final = 4
#: Sources at which an insight's support term of the importance reaches 1.
INSIGHT_SUPPORT_CAP: Final = 32
#: The importance formula's weights: mean source importance, confidence, support.
IMPORTANCE_WEIGHTS: Final = (0.5, 0.3, 0.2)
#: Seconds a ``reflect_prepare`` session may wait for its ``reflect_commit``.
DEFAULT_SESSION_TTL_S: Final = 3600.0
#: Key terms named by an offline insight.
OFFLINE_TERMS: Final = 3
#: Seconds between two checks of the background trigger.
TRIGGER_POLL_S: Final = 0.5
#: The context key an insight's metadata is stored under.
INSIGHT_CONTEXT_KEY: Final = "insight"
