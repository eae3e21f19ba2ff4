/**
 * HTTP to the server with Node's own `fetch` (Node 18+): the `Authorization: Bearer` header,
 * JSON bodies, a per-request timeout, and each failure as its error class (`errors.ts`).
 *
 * Given a cluster's URL, requests go to the shard that owns the key's tenant (docs/cluster.md):
 * a cluster's answers carry the shard map's version (`x-hebbs-shard-map`); the client then
 * fetches the map (`GET /v1/cluster/map`: the shards' URLs, the key's tenant and its owner) and
 * sends each request to the owner with that version. A shard that no longer owns the tenant
 * answers 421 before doing anything: the map is fetched again and the request resent. A request
 * whose connection the owner refuses goes to the given URL, and the map is fetched again at
 * most once a second. A plain server's answers carry no version: nothing more is sent.
 */

import { DEFAULT_TIMEOUT_MS } from './constants.js';
import {
  ClosedError,
  errorFromResponse,
  InvalidInputError,
  isObject,
  type ServerUnavailableError,
  unavailable,
} from './errors.js';
import type { Json } from './wire.js';

/** How `HebbsClient` reaches its server. */
export interface ClientOptions {
  /** The server's base URL, e.g. `http://127.0.0.1:6381`. */
  readonly url: string;
  /** A key made by `hebbs keys create`; sent as `Authorization: Bearer <key>`. */
  readonly apiKey?: string | undefined;
  /** Milliseconds a request may take; default `DEFAULT_TIMEOUT_MS` (30 s). `0`: no limit.
   * A subscription's stream is never timed out once it has started. */
  readonly timeoutMs?: number | undefined;
  /** Another `fetch` (a proxy-aware one, or one with its own agent); default the global. */
  readonly fetch?: typeof fetch | undefined;
  /** Whether to route to the shard that owns the key's tenant when `url` is a cluster's;
   * default `true`. `false` sends every request to `url`. */
  readonly route?: boolean | undefined;
}

/** Where a cluster client's requests go: the shard that owns its key's tenant. */
export interface Route {
  /** The version of the shard map it was read from. */
  readonly version: number;
  /** The owning shard's name. */
  readonly owner: string;
  /** The owning shard's URL. */
  readonly url: string;
}

/** The header of the shard map's version, on a cluster's answers and on routed requests. */
export const MAP_VERSION_HEADER = 'x-hebbs-shard-map';
/** The route of the shard map of the caller's key. */
export const MAP_ROUTE = '/v1/cluster/map';
/** The status of a routed request sent to a shard that does not own its tenant. */
export const MOVED_STATUS = 421;
/** Times a request is resent after a 421 (each after fetching the map again). */
export const MOVED_RETRIES = 3;
/** Milliseconds between two fetches of the map while the owner is unknown or unreachable. */
export const MAP_RETRY_MS = 1000;
/** Error codes of a connection that was never made: the request was not sent. */
const NOT_CONNECTED = new Set([
  'ECONNREFUSED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** One request: its method, path with query, and JSON body. */
export interface Call {
  readonly method: 'GET' | 'POST' | 'PUT';
  readonly path: string;
  readonly body?: Json | undefined;
}

export class Transport {
  readonly url: string;
  readonly #apiKey: string | undefined;
  readonly #timeoutMs: number;
  readonly #fetch: typeof fetch;
  readonly #routing: boolean;
  #closed = false;
  #route: Route | undefined;
  #fetched = -1;
  #retryAt = 0;

  constructor(options: ClientOptions) {
    if (!isObject(options) || typeof options.url !== 'string') {
      throw new InvalidInputError('url', 'expected the server URL as a string');
    }
    let parsed: URL;
    try {
      parsed = new URL(options.url);
    } catch {
      throw new InvalidInputError('url', `not a URL: ${JSON.stringify(options.url)}`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw new InvalidInputError('url', `expected http or https, got ${parsed.protocol}`);
    }
    if (
      options.apiKey !== undefined &&
      (typeof options.apiKey !== 'string' || options.apiKey === '')
    ) {
      throw new InvalidInputError('apiKey', 'expected a non-empty string');
    }
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs < 0) {
      throw new InvalidInputError('timeoutMs', 'expected a number of milliseconds >= 0');
    }
    this.url = options.url.replace(/\/+$/, '');
    this.#apiKey = options.apiKey;
    this.#timeoutMs = timeoutMs;
    if (options.route !== undefined && typeof options.route !== 'boolean') {
      throw new InvalidInputError('route', 'expected true or false');
    }
    this.#fetch = options.fetch ?? globalThis.fetch;
    this.#routing = options.route ?? true;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** The shard requests go to when the URL is a cluster's (`undefined`: the URL itself). */
  get route(): Route | undefined {
    return this.#route;
  }

  close(): void {
    this.#closed = true;
  }

  /** The decoded JSON answer of `call` (`undefined` for 204), or its error thrown. */
  async json(call: Call): Promise<unknown> {
    const response = await this.#send(call, this.#deadline());
    if (!response.ok) {
      return this.#fail(response);
    }
    const text = await this.#read(response);
    if (text === '') {
      return undefined;
    }
    try {
      return JSON.parse(text);
    } catch (error) {
      throw unavailable(
        this.url,
        new Error(`the answer to ${call.path} is not JSON`, { cause: error }),
      );
    }
  }

  /** The plain-text answer of `call` (the metrics). */
  async text(call: Call): Promise<string> {
    const response = await this.#send(call, this.#deadline());
    if (!response.ok) {
      return this.#fail(response);
    }
    return this.#read(response);
  }

  /** The response to `call`, its status checked and its body unread (a stream that
   * `controller` aborts). The request timeout applies until the headers arrive. */
  async open(call: Call, controller: AbortController): Promise<Response> {
    let late = false;
    const timer =
      this.#timeoutMs > 0
        ? setTimeout(() => {
            late = true;
            controller.abort();
          }, this.#timeoutMs)
        : undefined;
    let response: Response;
    try {
      response = await this.#send(call, controller.signal);
    } catch (error) {
      throw late ? this.#late() : error;
    } finally {
      clearTimeout(timer);
    }
    if (!response.ok) {
      await this.#fail(response);
    }
    return response;
  }

  async #send(call: Call, signal: AbortSignal | undefined): Promise<Response> {
    if (this.#closed) {
      throw new ClosedError('the client is closed', 'closed');
    }
    for (let attempt = 0; attempt <= MOVED_RETRIES; attempt += 1) {
      const route = this.#route;
      const base = route?.url ?? this.url;
      const headers = this.#headers();
      if (route !== undefined) {
        headers[MAP_VERSION_HEADER] = String(route.version);
      }
      const init: RequestInit = { method: call.method, headers };
      if (call.body !== undefined) {
        headers['content-type'] = 'application/json';
        init.body = JSON.stringify(call.body);
      }
      if (signal !== undefined) {
        init.signal = signal;
      }
      let response: Response;
      try {
        response = await this.#fetch(base + call.path, init);
      } catch (error) {
        if (route !== undefined && notConnected(error)) {
          this.#unreachable(route);
          continue;
        }
        throw this.#noAnswer(error);
      }
      if (route !== undefined && response.status === MOVED_STATUS) {
        await response.body?.cancel();
        await this.#fetchMap(base, route.version + 1, signal);
        continue;
      }
      const seen = this.#wantsMap(response.headers);
      if (seen !== undefined) {
        await this.#fetchMap(base, seen, signal);
      }
      return response;
    }
    throw unavailable(this.url, new Error('the shard map kept changing'));
  }

  #headers(): Record<string, string> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.#apiKey !== undefined) {
      headers['authorization'] = `Bearer ${this.#apiKey}`;
    }
    return headers;
  }

  /** The map version an answer calls for a fetch of the map at (`undefined`: none). */
  #wantsMap(headers: Headers): number | undefined {
    const value = headers.get(MAP_VERSION_HEADER);
    if (!this.#routing || value === null || !/^[0-9]+$/.test(value)) {
      return undefined;
    }
    const version = Number(value);
    if (version > this.#fetched) {
      return version;
    }
    return this.#route === undefined && Date.now() >= this.#retryAt ? version : undefined;
  }

  /** Fetches the shard map from `base` after an answer of version `seen`. */
  async #fetchMap(base: string, seen: number, signal: AbortSignal | undefined): Promise<void> {
    let route: Route | undefined;
    try {
      const init: RequestInit = { method: 'GET', headers: this.#headers() };
      if (signal !== undefined) {
        init.signal = signal;
      }
      const answer = await this.#fetch(base + MAP_ROUTE, init);
      const text = await answer.text();
      route = answer.ok ? routeOf(parseJson(text)) : undefined;
    } catch {
      route = undefined;
    }
    this.#fetched = Math.max(this.#fetched, seen, route?.version ?? -1);
    this.#route = route;
    this.#retryAt = Date.now() + MAP_RETRY_MS;
  }

  /** The owner at `route` refused the connection: back to the given URL for now. */
  #unreachable(route: Route): void {
    if (this.#route === route) {
      this.#route = undefined;
      this.#retryAt = Date.now() + MAP_RETRY_MS;
    }
  }

  /** The error of a request that got no (whole) answer: refused, reset or timed out. */
  #noAnswer(error: unknown): ServerUnavailableError {
    return isTimeout(error) ? this.#late() : unavailable(this.url, error);
  }

  /** A signal that aborts the request after the timeout (none without one). */
  #deadline(): AbortSignal | undefined {
    return this.#timeoutMs > 0 ? AbortSignal.timeout(this.#timeoutMs) : undefined;
  }

  #late(): ServerUnavailableError {
    return unavailable(this.url, new Error(`no answer within ${this.#timeoutMs} ms`));
  }

  /** Throws the error of a failed answer. */
  async #fail(response: Response): Promise<never> {
    const text = await this.#read(response);
    throw errorFromResponse(response.status, parseJson(text), response.headers.get('retry-after'));
  }

  async #read(response: Response): Promise<string> {
    try {
      return await response.text();
    } catch (error) {
      throw this.#noAnswer(error);
    }
  }
}

/** The route in a map answer (`undefined` when the owner's URL is unknown: it restarts). */
export function routeOf(body: unknown): Route | undefined {
  if (!isObject(body) || typeof body['version'] !== 'number' || !Array.isArray(body['shards'])) {
    return undefined;
  }
  const owner = body['owner'];
  for (const shard of body['shards'] as unknown[]) {
    if (isObject(shard) && shard['name'] === owner && typeof shard['url'] === 'string') {
      return {
        version: body['version'],
        owner: owner as string,
        url: shard['url'].replace(/\/+$/, ''),
      };
    }
  }
  return undefined;
}

/** Whether `fetch` failed before the request was sent (the connection was never made). */
function notConnected(error: unknown): boolean {
  const cause: unknown = error instanceof Error ? error.cause : undefined;
  return isObject(cause) && typeof cause['code'] === 'string' && NOT_CONNECTED.has(cause['code']);
}

function isTimeout(error: unknown): boolean {
  return error instanceof Error && error.name === 'TimeoutError';
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
