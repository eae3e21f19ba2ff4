/**
 * HTTP to the server with Node's own `fetch` (Node 18+): the `Authorization: Bearer` header,
 * JSON bodies, a per-request timeout, and each failure as its error class (`errors.ts`).
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
}

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
  #closed = false;

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
    this.#fetch = options.fetch ?? globalThis.fetch;
  }

  get closed(): boolean {
    return this.#closed;
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
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.#apiKey !== undefined) {
      headers['authorization'] = `Bearer ${this.#apiKey}`;
    }
    const init: RequestInit = { method: call.method, headers };
    if (call.body !== undefined) {
      headers['content-type'] = 'application/json';
      init.body = JSON.stringify(call.body);
    }
    if (signal !== undefined) {
      init.signal = signal;
    }
    try {
      return await this.#fetch(this.url + call.path, init);
    } catch (error) {
      throw this.#noAnswer(error);
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
