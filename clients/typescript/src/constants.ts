/**
 * The engine's defaults and limits, as the server applies them to a field the request leaves
 * out (the client sends only what the caller gave). They equal the constants of the same name of
 * `hebbs._native` (the reflection defaults: `hebbs.reflect.constants`); a test compares them.
 */

/** Results a recall returns when `topK` is not given. */
export const DEFAULT_TOP_K = 10;
/** The largest `topK`. */
export const MAX_TOP_K = 1000;
/** HNSW candidates searched when `efSearch` is not given. */
export const DEFAULT_EF_SEARCH = 50;
/** The largest `efSearch`. */
export const MAX_EF_SEARCH = 500;
/** Hops a causal walk takes when `maxDepth` is not given. */
export const DEFAULT_CAUSAL_DEPTH = 5;
/** The hard cap on `maxDepth`. */
export const MAX_CAUSAL_DEPTH = 10;
/** The direction a causal walk follows by default. */
export const DEFAULT_DIRECTION = 'both';
/** Analogical recall's blend of embedding over structural similarity. */
export const DEFAULT_ANALOGICAL_ALPHA = 0.5;
/** Hybrid recall's reciprocal-rank fusion constant. */
export const DEFAULT_RRF_K = 60;
/** Relationships returned per recall result (`graphContext`). */
export const DEFAULT_GRAPH_CONTEXT = 0;
/** The importance of a memory stored without one. */
export const DEFAULT_IMPORTANCE = 0.5;
/** Memories `prime()` returns when `maxMemories` is not given. */
export const DEFAULT_PRIME_MAX_MEMORIES = 20;
/** A subscription's similarity threshold (the engine stores it as float32). */
export const DEFAULT_CONFIDENCE_THRESHOLD = 0.3;
/** Pushes a subscription buffers before it drops the oldest. */
export const DEFAULT_QUEUE_CAPACITY = 1024;
/** Memories one `forget()` erases at most when `limit` is not given. */
export const DEFAULT_FORGET_LIMIT = 10_000;
/** `getChatContext()` and `listOrphans()` page size. */
export const DEFAULT_LIST_LIMIT = 100;
/** `listMemories()` page size when `limit` is not given. */
export const DEFAULT_LIST_PAGE = 100;
/** The largest `listMemories()` page. */
export const MAX_LIST_PAGE = 1000;
/** `tombstones()` page size. */
export const DEFAULT_TOMBSTONE_PAGE = 100;
/** The largest memory content, in UTF-8 bytes. */
export const MAX_CONTENT_BYTES = 65_536;
/** The longest caller key (`remember({ key })`), in UTF-8 bytes. */
export const MAX_KEY_BYTES = 1024;
/** Memories one `reflect()` or `reflectPrepare()` reads at most (`maxMemories`). */
export const DEFAULT_REFLECT_MAX_MEMORIES = 10_000;
/** Clusters smaller than this are not reflected on (`minClusterSize`). */
export const DEFAULT_MIN_CLUSTER_SIZE = 3;
/** Insights below this confidence are not stored (`reflect()`'s `minConfidence`). */
export const DEFAULT_MIN_CONFIDENCE = 0.3;
/** Seconds a prepared reflection session lives (`ttl`). */
export const DEFAULT_SESSION_TTL_S = 3600;
/** The strategies of the default recall of a cue (`strategies` not given): `hybrid`, whose
 * most relevant candidates the late-interaction stage re-scores, in composite order. */
export const DEFAULT_STRATEGIES: readonly string[] = ['hybrid'];

/** Milliseconds a request may take before the client gives up (`timeoutMs`). */
export const DEFAULT_TIMEOUT_MS = 30_000;
/** The length of a memory id in bytes. */
export const ID_BYTES = 16;
