/**
 * `@hebbs/sdk`: the TypeScript client of a hebbs memory server (`hebbs serve`). Everything a
 * caller uses is exported here: `HebbsClient`, the types and enums of the API, the option
 * types of each call, the error classes and the engine's defaults.
 */

export { HebbsClient } from './client.js';
export type { ClientOptions, Route } from './http.js';
export { Subscription } from './subscription.js';
export {
  EdgeType,
  MemoryKind,
  RecallStrategy,
  type Direction,
  type CommitResult,
  type Edge,
  type EdgeTypeName,
  type ExpansionEdge,
  type ForgetResult,
  type HealthStatus,
  type Insight,
  type Memory,
  type MemoryKindName,
  type MemoryPage,
  type PreparedCluster,
  type PrimeOutput,
  type RecallOutput,
  type RecallResult,
  type RecallStrategyConfig,
  type RecallStrategyName,
  type ReflectResult,
  type ReflectSession,
  type ScoringWeights,
  type StrategyDetail,
  type StrategyError,
  type SubscribePush,
  type Tombstone,
} from './types.js';
export type {
  CommitInsightInput,
  EdgeInput,
  Filter,
  FilterOperators,
  ForgetDecayedOptions,
  ForgetOptions,
  GetOptions,
  InsightsOptions,
  JsonObject,
  LimitOptions,
  CountMemoriesOptions,
  ListMemoriesOptions,
  MemoryIdLike,
  PrimeOptions,
  RankedOptions,
  RecallOptions,
  RecallStrategyInput,
  ReflectOptions,
  ReflectPrepareOptions,
  ReflectScopeOptions,
  RememberOptions,
  ReviseOptions,
  SubscribeOptions,
  TimeRange,
  Timestamp,
  TombstonesOptions,
  Vector,
} from './options.js';
export {
  AuthError,
  ClosedError,
  ConflictError,
  ERROR_CLASSES,
  ForbiddenError,
  HebbsError,
  InternalError,
  InvalidInputError,
  LLMError,
  NotFoundError,
  PayloadTooLargeError,
  RateLimitError,
  ServerUnavailableError,
  STATUS_CLASSES,
} from './errors.js';
export * from './constants.js';
