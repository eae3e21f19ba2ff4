/**
 * The options of each operation: the parameters of the Python API (`hebbs.Hebbs`) in camelCase,
 * each optional one defaulting on the server as `constants.ts` says. `wire.ts` turns them into
 * the server's snake_case JSON.
 */

import type {
  Direction,
  EdgeTypeName,
  MemoryKindName,
  RecallStrategyConfig,
  RecallStrategyName,
  ScoringWeights,
} from './types.js';

/** A memory id: 16 bytes, or 32 hex digits with or without the UUID hyphens. */
export type MemoryIdLike = Buffer | Uint8Array | string;
/** A time: microseconds since the epoch, or a `Date`. */
export type Timestamp = number | Date;
/** A vector: numbers, or a `Float32Array`. */
export type Vector = readonly number[] | Float32Array;
/** A JSON object of the caller's (a memory's `context`): sent as it is, keys untouched. */
export type JsonObject = Record<string, unknown>;

/** The operators of a filter condition on one field (docs/filters.md). */
export interface FilterOperators {
  readonly $eq?: unknown;
  readonly $ne?: unknown;
  readonly $gt?: number | string;
  readonly $gte?: number | string;
  readonly $lt?: number | string;
  readonly $lte?: number | string;
  readonly $in?: readonly unknown[];
  readonly $nin?: readonly unknown[];
  readonly $exists?: boolean;
  readonly $contains?: unknown;
}

/** A metadata filter (docs/filters.md): fields (`'context.channel'`, `kind`, `entity_id`,
 * `session_id`, `created_at`, `importance`, `key`) mapped to a value to equal or to
 * `FilterOperators`, and the combinators `$and`, `$or` and `$not`. Sent as it is, keys
 * untouched. */
export interface Filter {
  readonly $and?: readonly Filter[];
  readonly $or?: readonly Filter[];
  readonly $not?: Filter;
  readonly [field: string]: unknown;
}

/** An edge to store: like `Edge`, but the target may be given as hex and the type by name. */
export interface EdgeInput {
  readonly targetId: MemoryIdLike;
  readonly edgeType: EdgeTypeName;
  readonly confidence?: number | undefined;
}

/** A per-strategy config as input: like `RecallStrategyConfig`, ids and times widened. */
export interface RecallStrategyInput extends Omit<
  RecallStrategyConfig,
  'seedMemoryId' | 'timeRange'
> {
  readonly seedMemoryId?: MemoryIdLike | undefined;
  readonly timeRange?: TimeRange | undefined;
}

/** `[start, end]`; a missing bound is open (`null`). */
export type TimeRange = readonly [Timestamp | null, Timestamp | null];

export interface RememberOptions {
  /** The memory text (not blank, at most `MAX_CONTENT_BYTES` in UTF-8). */
  readonly content: string;
  /** 0.0 to 1.0; default `DEFAULT_IMPORTANCE` (0.5). */
  readonly importance?: number | undefined;
  readonly context?: JsonObject | undefined;
  readonly entityId?: string | undefined;
  readonly edges?: readonly EdgeInput[] | undefined;
  /** Default: now. */
  readonly createdAt?: Timestamp | undefined;
  /** Your own vector; without one the server embeds `content`. */
  readonly embedding?: Vector | undefined;
  /** Records the memory as part of that conversation (`getChatContext`). */
  readonly sessionId?: string | undefined;
  /** `episode` (default) or `insight`; revisions are made by `revise()`. */
  readonly kind?: MemoryKindName | undefined;
  /** Return a stored near-duplicate (reinforced) instead of storing this one. */
  readonly dedup?: boolean | undefined;
  /** The cosine a duplicate reaches; default 0.9 (the server's `DEFAULT_DEDUP_THRESHOLD`). */
  readonly dedupThreshold?: number | undefined;
  /** Your name for the memory (at most `MAX_KEY_BYTES`): storing under a key a memory holds
   * replaces that memory, every version of it, in the same write (an upsert). */
  readonly key?: string | undefined;
}

export interface GetOptions {
  /** Return the embedding vector too. */
  readonly includeEmbedding?: boolean | undefined;
}

/** What `recall()` and `prime()` share: the cue, the time window, the search and the ranking. */
export interface RankedOptions {
  readonly cue?: string | undefined;
  readonly timeRange?: TimeRange | undefined;
  readonly efSearch?: number | undefined;
  readonly scoringWeights?: ScoringWeights | undefined;
  /** Your own cue vector; without one the server embeds `cue`. */
  readonly cueEmbedding?: Vector | undefined;
  readonly includeEmbedding?: boolean | undefined;
  /** Only memories this metadata filter selects, in every strategy:
   * `{ 'context.channel': 'email', 'context.priority': { $gte: 2 } }`. */
  readonly filter?: Filter | undefined;
}

export interface RecallOptions extends RankedOptions {
  /** Names or per-strategy configs. Left out, a cue runs the default pipeline: `hybrid`
   * (`DEFAULT_STRATEGIES`), the late-interaction re-rank, composite order. */
  readonly strategies?: readonly (RecallStrategyName | RecallStrategyInput)[] | undefined;
  /** Default `DEFAULT_TOP_K` (10). */
  readonly topK?: number | undefined;
  /** Scopes the search; `temporal` needs it. */
  readonly entityId?: string | undefined;
  /** Where `causal` starts (default: the memory nearest the cue). */
  readonly seedMemoryId?: MemoryIdLike | undefined;
  readonly edgeTypes?: readonly EdgeTypeName[] | undefined;
  /** Default `DEFAULT_CAUSAL_DEPTH` (5), at most `MAX_CAUSAL_DEPTH` (10). */
  readonly maxDepth?: number | undefined;
  /** Default `DEFAULT_DIRECTION` (`'both'`). */
  readonly direction?: Direction | undefined;
  /** Default `DEFAULT_ANALOGICAL_ALPHA` (0.5). */
  readonly analogicalAlpha?: number | undefined;
  /** The structure analogical recall matches against (default: the seed's context). */
  readonly cueContext?: JsonObject | undefined;
  /** Default `DEFAULT_RRF_K` (60). */
  readonly rrfK?: number | undefined;
  /** Drops weaker candidates and counts them in `belowThreshold`. */
  readonly minRelevance?: number | undefined;
  /** Leaves out results whose composite score is below it; default `DEFAULT_MIN_SCORE` (0). */
  readonly minScore?: number | undefined;
  /** Relationships returned per result; default `DEFAULT_GRAPH_CONTEXT` (0). */
  readonly graphContext?: number | undefined;
  /** Records the returned memories for `getChatContext`. */
  readonly sessionId?: string | undefined;
  /** Replace the strategies with a regular-expression scan, the cue being the pattern. */
  readonly forceRegex?: boolean | undefined;
  /** Include memories a revision superseded. */
  readonly includeSuperseded?: boolean | undefined;
  /** Also recall from the organization's memory (the key's tenant must be a member of one);
   * its answer comes back as `organizationMemory`. */
  readonly includeOrganization?: boolean | undefined;
  /** A re-rank stage: `'none'` or `'late_interaction'`. */
  readonly rerank?: 'none' | 'late_interaction' | undefined;
  /** Candidates the re-rank stage sees; default 150 (the server's `DEFAULT_RERANK_TOP_N`). */
  readonly rerankTopN?: number | undefined;
  /** Your own cue token vectors (one vector per token) for late interaction. */
  readonly cueTokenVectors?: readonly Vector[] | undefined;
  /** For what is left unset: `'fast'`, hybrid without the re-rank stage; `'best'`, the
   * default pipeline ranked by relevance alone. */
  readonly quality?: 'fast' | 'best' | undefined;
}

export interface PrimeOptions extends RankedOptions {
  readonly entityId: string;
  /** Default `DEFAULT_PRIME_MAX_MEMORIES` (20). */
  readonly maxMemories?: number | undefined;
}

/** What a revision changes; fields left out are inherited. */
export interface ReviseOptions {
  readonly content?: string | undefined;
  readonly importance?: number | undefined;
  readonly context?: JsonObject | undefined;
  readonly embedding?: Vector | undefined;
  readonly entityId?: string | undefined;
}

/** The selectors are AND-combined; at least one is needed. */
export interface ForgetOptions {
  readonly ids?: readonly MemoryIdLike[] | undefined;
  /** The memories these keys name (`remember({ key })`), every version of each. */
  readonly keys?: readonly string[] | undefined;
  readonly entityId?: string | undefined;
  /** Created before this time. */
  readonly olderThan?: Timestamp | undefined;
  readonly importanceBelow?: number | undefined;
  readonly kind?: MemoryKindName | undefined;
  /** Also compact the store so the bytes leave the disk. */
  readonly purge?: boolean | undefined;
  /** Default `DEFAULT_FORGET_LIMIT`; `truncated` in the result says to call again. */
  readonly limit?: number | undefined;
  /** Only memories this metadata filter selects (docs/filters.md). */
  readonly filter?: Filter | undefined;
}

export interface ForgetDecayedOptions {
  /** Forget memories whose decay score is below this. */
  readonly floor: number;
  readonly limit?: number | undefined;
}

export interface ListMemoriesOptions {
  readonly entityId?: string | undefined;
  readonly kind?: MemoryKindName | undefined;
  /** A page's `nextCursor`. */
  readonly cursor?: MemoryIdLike | undefined;
  /** 1 to `MAX_LIST_PAGE`; default `DEFAULT_LIST_PAGE` (100). */
  readonly limit?: number | undefined;
  readonly includeSuperseded?: boolean | undefined;
  /** Only memories this metadata filter selects (docs/filters.md). */
  readonly filter?: Filter | undefined;
  /** Only memories whose key (`remember({ key })`) starts with this; `''`: every keyed one. */
  readonly keyPrefix?: string | undefined;
}

/** The selection of `countMemories()`: that of `listMemories()`, every page. */
export interface CountMemoriesOptions extends Omit<ListMemoriesOptions, 'cursor' | 'limit'> {}

export interface LimitOptions {
  /** Default `DEFAULT_LIST_LIMIT` (100). */
  readonly limit?: number | undefined;
}

export interface TombstonesOptions {
  /** The last id of the previous page. */
  readonly after?: MemoryIdLike | undefined;
  /** Default `DEFAULT_TOMBSTONE_PAGE` (100). */
  readonly limit?: number | undefined;
}

export interface SubscribeOptions {
  /** What to watch for (embedded like a recall cue); give this or `embedding`. */
  readonly cue?: string | undefined;
  readonly embedding?: Vector | undefined;
  readonly entityId?: string | undefined;
  /** Default `DEFAULT_CONFIDENCE_THRESHOLD` (0.3). */
  readonly confidenceThreshold?: number | undefined;
  /** Default `DEFAULT_QUEUE_CAPACITY` (1024). */
  readonly queueCapacity?: number | undefined;
  /** Only memories this metadata filter selects (docs/filters.md). */
  readonly filter?: Filter | undefined;
}

/** What `reflect()` and `reflectPrepare()` share: the scope and how it is clustered. */
export interface ReflectScopeOptions {
  /** One entity's memories; default the whole store. */
  readonly entityId?: string | undefined;
  /** Memories read after the scope's cursor at most; default `DEFAULT_REFLECT_MAX_MEMORIES`
   * (10000). */
  readonly maxMemories?: number | undefined;
  /** Smaller clusters are not thought about; default `DEFAULT_MIN_CLUSTER_SIZE` (3). */
  readonly minClusterSize?: number | undefined;
}

/** Which new memories `reflect()` consolidates, and how. */
export interface ReflectOptions extends ReflectScopeOptions {
  /** Only memories created at or after this time. */
  readonly since?: Timestamp | undefined;
  /** Insights below this confidence (0.0 to 1.0) are not stored; default
   * `DEFAULT_MIN_CONFIDENCE` (0.3). */
  readonly minConfidence?: number | undefined;
}

export interface ReflectPrepareOptions extends ReflectScopeOptions {
  /** Seconds the session lives; default `DEFAULT_SESSION_TTL_S` (3600). */
  readonly ttl?: number | undefined;
}

export interface InsightsOptions {
  /** One entity's insights; default all. */
  readonly entityId?: string | undefined;
  /** 0.0 to 1.0; default 0. */
  readonly minConfidence?: number | undefined;
  /** Also list insights a source of which has been revised since. */
  readonly includeStale?: boolean | undefined;
}

/** One insight a host's own model made from a prepared session. */
export interface CommitInsightInput {
  /** The insight's text. */
  readonly content: string;
  /** The ids of its sources: memories of the session's clusters. */
  readonly sources: readonly MemoryIdLike[];
  /** 0.0 to 1.0; default 1. */
  readonly confidence?: number | undefined;
}
