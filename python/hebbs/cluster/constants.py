"""Named defaults of the cluster (``hebbs cluster serve``), defined once; docs/cluster.md quotes
them."""

from __future__ import annotations

from typing import Final

#: The port of the cluster's URL (Ray Serve's HTTP proxy) unless ``cluster.toml`` says otherwise.
DEFAULT_CLUSTER_PORT: Final = 6390
#: The Serve application of the ingress.
INGRESS_APP: Final = "hebbs-cluster"
#: The Serve application of shard ``NAME`` is this prefix and the name.
SHARD_APP_PREFIX: Final = "hebbs-shard-"
#: The cluster's own file in its data directory: the shard list and the internal secret.
STATE_FILE: Final = "cluster.json"
#: The folder of the shards' data directories in the cluster's data directory (a shard whose
#: ``[shard.NAME]`` table gives no ``data_dir``).
SHARDS_DIR: Final = "shards"
#: Ingress replicas behind Serve's proxy unless ``cluster.toml`` says otherwise
#: (``ingress_replicas``): two, so that one replica's death or restart leaves one serving.
DEFAULT_INGRESS_REPLICAS: Final = 2
#: The Ray namespace of the cluster's named actor (the coordinator), so that another driver
#: (``hebbs cluster add-shard``) finds it.
RAY_NAMESPACE: Final = "hebbs"
#: The name of the coordinator actor (the key store, the shard list, the moving tenants).
COORDINATOR_NAME: Final = "hebbs-coordinator"
#: Seconds an ingress replica or a shard keeps a key's lookup (found or not) before asking the
#: coordinator again: a revoked key is refused everywhere within this time.
KEY_CACHE_TTL_S: Final = 2.0
#: Seconds an ingress replica routes by the shard list it fetched before asking the
#: coordinator again (a shard that no longer owns a tenant answers it 421, and the replica asks
#: at once).
ROUTE_CACHE_TTL_S: Final = 1.0
#: The route that answers the shard map of the caller's key (every ingress replica and every
#: shard serves it): ``{"version", "hashing", "shards": [{"name", "url"}], "tenant", "owner"}``.
MAP_ROUTE: Final = "/v1/cluster/map"
#: The header of the shard map's version: on every answer of a cluster (so a client learns that
#: it talks to one), and on a request routed by that version of the map (a shard that does not
#: own the tenant answers it 421 rather than forwarding it).
MAP_VERSION_HEADER: Final = "x-hebbs-shard-map"
#: The header of the shard that served an answer.
SHARD_HEADER: Final = "x-hebbs-shard"
#: The status of a routed request sent to a shard that does not own its tenant (HTTP's
#: Misdirected Request), with ``error_code`` :data:`MOVED_CODE`, the ``owner`` and the
#: ``map_version`` of the shard's map: the client fetches the map again and resends.
MOVED_STATUS: Final = 421
#: The ``error_code`` of that answer.
MOVED_CODE: Final = "moved"
#: How the shard map names its hashing (:mod:`hebbs.cluster.hashing`): rendezvous hashing with
#: 64-bit BLAKE2b weights of ``shard NUL tenant``, personalised ``hebbs-hrw``.
HASHING: Final = "rendezvous/blake2b-64/hebbs-hrw"
#: Times a request is resent after a 421 (each after fetching the map again) before the caller
#: is answered 503.
MOVED_RETRIES: Final = 3
#: The header each answer of the ingress carries: which ingress replica (its process id).
INGRESS_HEADER: Final = "x-hebbs-ingress"
#: Seconds a move waits for the writes in flight to its tenants on their shard (a request
#: gives up after :data:`FORWARD_TIMEOUT_S`, so every write in flight ends by then).
DRAIN_WAIT_S: Final = 600.0
#: The header that carries the cluster's internal secret to a shard's ``/_shard`` routes.
SECRET_HEADER: Final = "x-hebbs-cluster-secret"
#: The prefix of a shard's internal routes (listing, export, import and removal of tenants).
INTERNAL_PREFIX: Final = "/_shard"
#: Seconds a client is told to wait (``Retry-After``) when it writes to a tenant being moved.
MOVE_RETRY_AFTER_S: Final = 1
#: Seconds the ingress waits for a shard whose replica is down (restarting) before a 503.
SHARD_WAIT_S: Final = 60.0
#: Seconds between the ingress's attempts to reach a shard that is down.
SHARD_RETRY_S: Final = 0.2
#: Requests one ingress replica serves at once (Ray Serve's ``max_ongoing_requests``; each open
#: subscription stream holds one).
INGRESS_MAX_ONGOING: Final = 512
#: Requests one shard replica is sent at once through Serve (only its control calls go there).
SHARD_MAX_ONGOING: Final = 64
#: Seconds between Ray Serve's health checks of a replica.
HEALTH_CHECK_PERIOD_S: Final = 2.0
#: Seconds a shard replica may take to answer its health check.
HEALTH_CHECK_TIMEOUT_S: Final = 10.0
#: Seconds the ingress gives one forwarded request (a large import may take long).
FORWARD_TIMEOUT_S: Final = 600.0
#: Ray's switch between a node address on loopback ("0") and the outward one ("1"), read when
#: Ray is imported (:mod:`hebbs.cluster.runtime`).
CLUSTER_ENV: Final = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"
#: Environment variable that turns off Ray's usage statistics (they would leave the machine).
USAGE_STATS_ENV: Final = "RAY_USAGE_STATS_ENABLED"
#: The node address of a Ray started here.
LOOPBACK: Final = "127.0.0.1"
#: Ray's authentication mode, read when Ray is imported: ``token`` unless the environment says
#: otherwise, so a driver that joins a running Ray sends its token (~/.ray/auth_token), as the
#: Ray that hebbs starts requires.
AUTH_MODE_ENV: Final = "RAY_AUTH_MODE"
