/**
 * The page's calls to the server's `/v1/` API, on the page's own origin, with the key of the
 * tab (`Authorization: Bearer`). The JSON is the server's as it is (snake_case, ids as 32 hex
 * digits); a failure is an `ApiError` with the server's `error_code`, `message` and `field`.
 */

export interface MemoryJson {
  readonly id: string;
  readonly content: string;
  readonly importance: number;
  readonly context: Record<string, unknown>;
  readonly entity_id: string | null;
  readonly created_at: number;
  readonly updated_at: number;
  readonly last_accessed_at: number;
  readonly access_count: number;
  readonly decay_score: number;
  readonly kind: string;
  readonly superseded: boolean;
}

export interface StrategyDetailJson {
  readonly strategy: string;
  readonly relevance: number;
  readonly distance: number | null;
  readonly timestamp: number | null;
  readonly rank: number | null;
  readonly depth: number | null;
  readonly embedding_similarity: number | null;
  readonly structural_similarity: number | null;
  readonly dense_score: number | null;
  readonly bm25_score: number | null;
  readonly rrf_score: number | null;
}

export interface ExpansionEdgeJson {
  readonly edge_type: string;
  readonly direction: 'outgoing' | 'incoming';
  readonly confidence: number;
  readonly preview: string;
  readonly neighbor_id: string;
}

export interface RecallResultJson {
  readonly memory: MemoryJson;
  readonly score: number;
  readonly strategy_details: readonly StrategyDetailJson[];
  readonly expansion_context: readonly ExpansionEdgeJson[];
  /** `final`, the four signals (`relevance`, `recency`, `importance`, `reinforcement`) and
   * the strategies' own scores. */
  readonly scores: Readonly<Record<string, number>>;
}

export interface RecallOutputJson {
  readonly results: readonly RecallResultJson[];
  readonly strategy_errors: readonly { strategy: string; message: string }[];
  readonly below_threshold: number;
}

export interface HealthJson {
  readonly serving: boolean;
  readonly version: string;
  readonly memory_count: number;
  readonly uptime_seconds: number;
}

export interface WeightsJson {
  readonly w_relevance: number;
  readonly w_recency: number;
  readonly w_importance: number;
  readonly w_reinforcement: number;
}

/** A failed call: the server's error body, or a network failure (`status` 0). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field: string | null,
  ) {
    super(message);
  }
}

/** Where the tab keeps its key: sessionStorage, gone with the tab, never in the URL. */
export const KEY_STORAGE = 'hebbs.apiKey';

export function storedKey(): string | null {
  return sessionStorage.getItem(KEY_STORAGE);
}

export function storeKey(key: string | null): void {
  if (key === null) {
    sessionStorage.removeItem(KEY_STORAGE);
  } else {
    sessionStorage.setItem(KEY_STORAGE, key);
  }
}

/** The JSON answer of `method path` with `body`, or an `ApiError`. */
export async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  const key = storedKey();
  if (key !== null) {
    headers['authorization'] = `Bearer ${key}`;
  }
  const init: RequestInit = { method, headers };
  if (body !== undefined) {
    headers['content-type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let response: Response;
  try {
    response = await fetch(path, init);
  } catch (error) {
    throw new ApiError(0, 'unavailable', `the server did not answer: ${String(error)}`, null);
  }
  const text = await response.text();
  const data: unknown = text === '' ? undefined : JSON.parse(text);
  if (!response.ok) {
    const failure = (data ?? {}) as { error_code?: string; message?: string; field?: string };
    throw new ApiError(
      response.status,
      failure.error_code ?? `http_${response.status}`,
      failure.message ?? `HTTP ${response.status}`,
      failure.field ?? null,
    );
  }
  return data as T;
}

export const api = {
  health: () => call<HealthJson>('GET', '/v1/health'),
  recall: (body: Record<string, unknown>) =>
    call<RecallOutputJson>('POST', '/v1/memories/recall', body),
  get: (id: string) => call<MemoryJson>('GET', `/v1/memories/${id}`),
  lineage: (id: string) => call<MemoryJson[]>('GET', `/v1/memories/${id}/lineage`),
  revise: (id: string, content: string) =>
    call<MemoryJson>('PUT', `/v1/memories/${id}`, { content }),
  forget: (id: string) =>
    call<{ forgotten_count: number }>('POST', '/v1/memories/forget', { ids: [id] }),
  list: (query: string) =>
    call<{ memories: MemoryJson[]; next_cursor: string | null }>('GET', `/v1/memories?${query}`),
};
