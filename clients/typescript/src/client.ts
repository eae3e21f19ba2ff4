/**
 * `HebbsClient`: every operation of a `hebbs serve` server (the Python API's, in camelCase), one
 * method each, each one request of `docs/server.md`'s endpoint table. Options are turned into
 * the wire's snake_case by `wire.ts`; the server checks them and names a bad field, which comes
 * back as an `InvalidInputError` with that field in the client's names.
 */

import { ID_BYTES } from './constants.js';
import { InvalidInputError, NotFoundError, ServerUnavailableError } from './errors.js';
import { type Call, type ClientOptions, type Route, Transport } from './http.js';
import type {
  CommitInsightInput,
  EdgeInput,
  ForgetDecayedOptions,
  ForgetOptions,
  GetOptions,
  InsightsOptions,
  LimitOptions,
  CountMemoriesOptions,
  ListMemoriesOptions,
  MemoryIdLike,
  PrimeOptions,
  RecallOptions,
  ReflectOptions,
  ReflectPrepareOptions,
  RememberOptions,
  ReviseOptions,
  SubscribeOptions,
  TombstonesOptions,
} from './options.js';
import { Subscription } from './subscription.js';
import type {
  CommitResult,
  Edge,
  ForgetResult,
  HealthStatus,
  Insight,
  Memory,
  MemoryPage,
  PrimeOutput,
  RecallOutput,
  ReflectResult,
  ReflectSession,
  Tombstone,
} from './types.js';
import { decode, encode, encodeObject, encodeQuery, idText } from './wire.js';

/** The server's one id syntax: 32 hex digits, or the same digits in the hyphenated UUID form. */
const ID_TEXT =
  /^(?:[0-9a-fA-F]{32}|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$/;

export class HebbsClient {
  readonly #transport: Transport;
  readonly #subscriptions = new Set<Subscription>();

  /** A client of the server at `url`, sending `apiKey` with every request. Nothing is sent
   * until the first call; `HebbsClient.connect` checks the URL and key at once. */
  constructor(options: ClientOptions) {
    this.#transport = new Transport(options);
  }

  /** A client whose URL and key `health()` has checked. */
  static async connect(options: ClientOptions): Promise<HebbsClient> {
    const client = new HebbsClient(options);
    await client.health();
    return client;
  }

  /** The server's base URL. */
  get url(): string {
    return this.#transport.url;
  }

  /** Where requests go when the URL is a cluster's: the shard that owns the key's tenant, its
   * URL and the shard map's version (`undefined`: the URL itself). */
  get route(): Route | undefined {
    return this.#transport.route;
  }

  /** Stores one memory (`POST /v1/memories`); the server embeds `content` unless `embedding`
   * is given. A string is the content alone. */
  async remember(input: string | RememberOptions): Promise<Memory> {
    const body = encodeObject(options(input, 'content'));
    return (await this.#json({ method: 'POST', path: '/v1/memories', body })) as Memory;
  }

  /** Stores many memories in one embedding batch and one atomic write (all or nothing),
   * returned in input order (`POST /v1/memories/bulk`). */
  async rememberMany(items: readonly (string | RememberOptions)[]): Promise<Memory[]> {
    const given = list(items, 'items').map((item, index) =>
      options(item, 'content', `items[${index}]`),
    );
    const body = { items: given.map((item, index) => encodeObject(item, `items[${index}]`)) };
    return (await this.#json({ method: 'POST', path: '/v1/memories/bulk', body })) as Memory[];
  }

  /** The memory with `id` (`GET /v1/memories/{id}`); a `NotFoundError` if there is none. */
  async get(id: MemoryIdLike, options: GetOptions = {}): Promise<Memory> {
    const path = memoryPath(id) + encodeQuery(options);
    return (await this.#json({ method: 'GET', path })) as Memory;
  }

  /** The memories with `ids`, in their order, `undefined` where one does not exist
   * (`POST /v1/memories/batch`). `getByKeys` reads them by caller key. */
  async getMany(
    ids: readonly MemoryIdLike[],
    options: GetOptions = {},
  ): Promise<(Memory | undefined)[]> {
    const body = encodeObject({ ids: list(ids, 'ids'), ...options });
    return (await this.#json({ method: 'POST', path: '/v1/memories/batch', body })) as (
      Memory | undefined
    )[];
  }

  /** The memories `keys` name (`remember({ key })`), in their order, `undefined` where no
   * memory holds one (`POST /v1/memories/batch` with `keys`). */
  async getByKeys(
    keys: readonly string[],
    options: GetOptions = {},
  ): Promise<(Memory | undefined)[]> {
    const body = encodeObject({ keys: [...keys], ...options });
    return (await this.#json({ method: 'POST', path: '/v1/memories/batch', body })) as (
      Memory | undefined
    )[];
  }

  /** One page of the stored memories, oldest first (`GET /v1/memories`): every memory in the
   * order stored, or with `entityId` that entity's timeline. Pass `nextCursor` as `cursor`
   * for the next page; the listing is complete when it is `undefined`. */
  async listMemories(options: ListMemoriesOptions = {}): Promise<MemoryPage> {
    const path = `/v1/memories${encodeQuery(options)}`;
    return (await this.#json({ method: 'GET', path })) as MemoryPage;
  }

  /** How many memories `listMemories` with the same selection lists over every page
   * (`GET /v1/memories/count`). */
  async countMemories(options: CountMemoriesOptions = {}): Promise<number> {
    const path = `/v1/memories/count${encodeQuery(options)}`;
    return ((await this.#json({ method: 'GET', path })) as { count: number }).count;
  }

  /** Every memory `listMemories` would list, page after page. */
  async *memories(options: Omit<ListMemoriesOptions, 'cursor'> = {}): AsyncGenerator<Memory> {
    let cursor: Buffer | undefined;
    do {
      const page = await this.listMemories({ ...options, cursor });
      yield* page.memories;
      cursor = page.nextCursor;
    } while (cursor !== undefined);
  }

  /** Recalls memories for a cue with one or more strategies run in parallel, ranked by the
   * composite score (`POST /v1/memories/recall`). A string is the cue alone. */
  async recall(input: string | RecallOptions): Promise<RecallOutput> {
    const body = encodeObject(options(input, 'cue'));
    return (await this.#json({
      method: 'POST',
      path: '/v1/memories/recall',
      body,
    })) as RecallOutput;
  }

  /** An entity's recent memories blended with those nearest the cue
   * (`POST /v1/memories/prime`). */
  async prime(input: PrimeOptions): Promise<PrimeOutput> {
    const body = encodeObject(options(input, 'entityId'));
    return (await this.#json({ method: 'POST', path: '/v1/memories/prime', body })) as PrimeOutput;
  }

  /** Stores a revision that supersedes memory `id` and returns it (`PUT /v1/memories/{id}`);
   * fields left out are inherited. */
  async revise(id: MemoryIdLike, changes: ReviseOptions): Promise<Memory> {
    const body = encodeObject(options(changes, 'content'));
    return (await this.#json({ method: 'PUT', path: memoryPath(id), body })) as Memory;
  }

  /** The revision chain through `id`, oldest first (`GET /v1/memories/{id}/lineage`). */
  async lineage(id: MemoryIdLike): Promise<Memory[]> {
    return (await this.#json({ method: 'GET', path: memoryPath(id, '/lineage') })) as Memory[];
  }

  /** The edges memory `id` holds (`direction: 'out'`, the default) or the ones pointing at it
   * (`'in'`: each `targetId` is then the memory holding the edge); `NotFoundError` when `id` is
   * not stored (`GET /v1/memories/{id}/edges`). */
  async getEdges(
    id: MemoryIdLike,
    options: { readonly direction?: 'out' | 'in' | undefined } = {},
  ): Promise<Edge[]> {
    const path = `${memoryPath(id, '/edges')}${encodeQuery(options)}`;
    return (await this.#json({ method: 'GET', path })) as Edge[];
  }

  /** Adds edges from memory `id` to existing memories, all or nothing
   * (`POST /v1/memories/{id}/edges`). */
  async addEdges(id: MemoryIdLike, edges: readonly EdgeInput[]): Promise<void> {
    const body = { edges: encode(list(edges, 'edges'), 'edges') ?? [] };
    await this.#json({ method: 'POST', path: memoryPath(id, '/edges'), body });
  }

  /** Counts a use of each of the memories `ids` (the ones your agent used), as a recall
   * returning them would: their reinforcement signal rises; missing ids are skipped
   * (`POST /v1/memories/reinforce`). */
  async reinforce(ids: readonly MemoryIdLike[]): Promise<void> {
    const body = encodeObject({ ids: list(ids, 'ids') });
    await this.#json({ method: 'POST', path: '/v1/memories/reinforce', body });
  }

  /** Forgets the memories the AND-combined selectors pick, with what derives from them,
   * leaving tombstones (`POST /v1/memories/forget`). */
  async forget(selectors: ForgetOptions): Promise<ForgetResult> {
    const body = encodeObject(options(selectors, 'ids'));
    return (await this.#json({
      method: 'POST',
      path: '/v1/memories/forget',
      body,
    })) as ForgetResult;
  }

  /** Forgets up to `limit` memories whose decay score is below `floor`
   * (`POST /v1/memories/forget_decayed`). */
  async forgetDecayed(input: ForgetDecayedOptions): Promise<ForgetResult> {
    const body = encodeObject(options(input, 'floor'));
    const call: Call = { method: 'POST', path: '/v1/memories/forget_decayed', body };
    return (await this.#json(call)) as ForgetResult;
  }

  /** The tombstone of forgotten memory `id`, or `undefined` (`GET /v1/tombstones/{id}`). */
  async tombstone(id: MemoryIdLike): Promise<Tombstone | undefined> {
    try {
      return (await this.#json({
        method: 'GET',
        path: `/v1/tombstones/${segment(id, 'id')}`,
      })) as Tombstone;
    } catch (error) {
      if (error instanceof NotFoundError) {
        return undefined;
      }
      throw error;
    }
  }

  /** A page of tombstones in id order; pass the last id as `after` for the next
   * (`GET /v1/tombstones`). */
  async tombstones(options: TombstonesOptions = {}): Promise<Tombstone[]> {
    return (await this.#json({
      method: 'GET',
      path: `/v1/tombstones${encodeQuery(options)}`,
    })) as Tombstone[];
  }

  /** The memories conversation `sessionId` touched, in the order of their first touch
   * (`GET /v1/sessions/{id}/context`). */
  async getChatContext(sessionId: string, options: LimitOptions = {}): Promise<Memory[]> {
    if (typeof sessionId !== 'string' || sessionId === '') {
      throw new InvalidInputError('sessionId', 'expected a non-empty string');
    }
    const path = `/v1/sessions/${encodeURIComponent(sessionId)}/context${encodeQuery(options)}`;
    return (await this.#json({ method: 'GET', path })) as Memory[];
  }

  /** Memories with no edge in either direction, newest first (`GET /v1/orphans`). */
  async listOrphans(options: LimitOptions = {}): Promise<Memory[]> {
    return (await this.#json({
      method: 'GET',
      path: `/v1/orphans${encodeQuery(options)}`,
    })) as Memory[];
  }

  /** Opens a standing query (`POST /v1/subscribe`): every memory remembered from now on
   * whose similarity to the cue reaches `confidenceThreshold` is pushed, in commit order. A
   * string is the cue alone. Resolves once the server has named the subscription. */
  async subscribe(input: string | SubscribeOptions): Promise<Subscription> {
    const body = encodeObject(options(input, 'cue'));
    const call: Call = { method: 'POST', path: '/v1/subscribe', body };
    const subscription = await Subscription.open(this.#transport, call, (closed) =>
      this.#subscriptions.delete(closed),
    );
    this.#subscriptions.add(subscription);
    return subscription;
  }

  /** Consolidates the scope's new memories (those after its cursor) into insight memories
   * with the server's LLM provider, offline unless the server is configured with one
   * (`POST /v1/reflect`); a failing provider is an `LLMError` (502). */
  async reflect(input: ReflectOptions = {}): Promise<ReflectResult> {
    const body = encodeObject(object(input, 'options'));
    return (await this.#json({ method: 'POST', path: '/v1/reflect', body })) as ReflectResult;
  }

  /** The scope's insights with their confidence, sources and staleness, oldest first
   * (`GET /v1/insights`); stale ones only with `includeStale`. */
  async insights(input: InsightsOptions = {}): Promise<Insight[]> {
    const path = `/v1/insights${encodeQuery(object(input, 'options'))}`;
    return (await this.#json({ method: 'GET', path })) as Insight[];
  }

  /** Agent-driven reflection, step one (`POST /v1/reflect/prepare`): the scope's new memories
   * clustered, with the exact prompt of each cluster for the caller's own model, in a session
   * that expires after `ttl` seconds. */
  async reflectPrepare(input: ReflectPrepareOptions = {}): Promise<ReflectSession> {
    const body = encodeObject(object(input, 'options'));
    const call: Call = { method: 'POST', path: '/v1/reflect/prepare', body };
    return (await this.#json(call)) as ReflectSession;
  }

  /** Agent-driven reflection, step two (`POST /v1/reflect/commit`): stores the caller's
   * insights for session `sessionId`, all or nothing (each source must be a memory of the
   * session), moves the scope's cursor and ends the session. */
  async reflectCommit(
    sessionId: string,
    insights: readonly CommitInsightInput[],
  ): Promise<CommitResult> {
    const given = list(insights, 'insights').map((item, index) =>
      object(item, `insights[${index}]`),
    );
    const body = encodeObject({ sessionId, insights: given });
    const call: Call = { method: 'POST', path: '/v1/reflect/commit', body };
    return (await this.#json(call)) as CommitResult;
  }

  /** The caller's store: serving state, version, memory count, uptime (`GET /v1/health`). */
  async health(): Promise<HealthStatus> {
    return (await this.#json({ method: 'GET', path: '/v1/health' })) as HealthStatus;
  }

  /** Whether the server process answers (`GET /v1/health/live`, no key needed). */
  async live(): Promise<boolean> {
    const answer = await this.#json({ method: 'GET', path: '/v1/health/live' });
    return (answer as { live?: unknown }).live === true;
  }

  /** Whether the server has started and is not shutting down (`GET /v1/health/ready`). */
  async ready(): Promise<boolean> {
    try {
      const answer = await this.#json({ method: 'GET', path: '/v1/health/ready' });
      return (answer as { ready?: unknown }).ready === true;
    } catch (error) {
      if (error instanceof ServerUnavailableError && error.status === 503) {
        return false;
      }
      throw error;
    }
  }

  /** The server's Prometheus metrics as text (`GET /v1/metrics`; an admin key). */
  async metrics(): Promise<string> {
    return this.#transport.text({ method: 'GET', path: '/v1/metrics' });
  }

  /** Whether `close()` was called. */
  get closed(): boolean {
    return this.#transport.closed;
  }

  /** Closes the client and its open subscriptions; later calls throw a `ClosedError`. */
  close(): void {
    this.#transport.close();
    for (const subscription of this.#subscriptions) {
      subscription.close();
    }
    this.#subscriptions.clear();
  }

  async #json(call: Call): Promise<unknown> {
    return decode(await this.#transport.json(call));
  }
}

/** `input` as an options object: a string is the value of its main field `main`. Anything
 * else is an `InvalidInputError` naming `field`. */
function options<T extends object>(input: string | T, main: string, field = main): T {
  if (typeof input === 'string') {
    return { [main]: input } as T;
  }
  return object(input, field, 'expected a string or an options object');
}

/** `input` if it is a plain object, else an `InvalidInputError` naming `field`. */
function object<T extends object>(input: T, field: string, reason = 'expected an object'): T {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new InvalidInputError(field, reason);
  }
  return input;
}

function list<T>(value: readonly T[], field: string): readonly T[] {
  if (!Array.isArray(value)) {
    throw new InvalidInputError(field, 'expected an array');
  }
  return value;
}

/** `id` as one URL path segment; a string must be an id in the server's syntax (an empty or odd
 * one would name another path). */
function segment(id: MemoryIdLike, field: string): string {
  const text = idText(id, field);
  if (!ID_TEXT.test(text)) {
    throw new InvalidInputError(
      field,
      `expected ${ID_BYTES} bytes, or ${ID_BYTES * 2} hex digits with or without the UUID hyphens`,
    );
  }
  return text;
}

function memoryPath(id: MemoryIdLike, suffix = ''): string {
  return `/v1/memories/${segment(id, 'id')}${suffix}`;
}
