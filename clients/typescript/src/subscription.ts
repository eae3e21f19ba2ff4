/**
 * A standing query's pushes as an async iterator over the server's event stream
 * (`POST /v1/subscribe`): `for await (const push of subscription)`, or `nextPush(timeoutMs)`.
 * `close()` (or leaving a `for await` loop) aborts the stream, and the server closes the native
 * subscription at once.
 */

import { errorFromResponse, HebbsError, isObject, ServerUnavailableError } from './errors.js';
import type { Call, Transport } from './http.js';
import { readEvents, type ServerEvent } from './sse.js';
import type { SubscribePush } from './types.js';
import { decode } from './wire.js';

/** The stream's event names. */
export const SUBSCRIBED_EVENT = 'subscribed';
export const PUSH_EVENT = 'push';
export const END_EVENT = 'end';
export const ERROR_EVENT = 'error';

export class Subscription implements AsyncIterableIterator<SubscribePush> {
  /** The server's id of this subscription (every push carries it). */
  readonly id: number;
  readonly #events: AsyncGenerator<ServerEvent>;
  readonly #controller: AbortController;
  readonly #onClose: (subscription: Subscription) => void;
  #pending: Promise<IteratorResult<SubscribePush>> | undefined;
  #closed = false;
  #dropped = 0;
  #lastSequence: number | undefined;

  private constructor(
    id: number,
    events: AsyncGenerator<ServerEvent>,
    controller: AbortController,
    onClose: (subscription: Subscription) => void,
  ) {
    this.id = id;
    this.#events = events;
    this.#controller = controller;
    this.#onClose = onClose;
  }

  /** Opens the stream and waits for the server's first event, which names the subscription;
   * `onClose` is called once when it closes. */
  static async open(
    transport: Transport,
    call: Call,
    onClose: (subscription: Subscription) => void = () => undefined,
  ): Promise<Subscription> {
    const controller = new AbortController();
    const response = await transport.open(call, controller);
    if (response.body === null) {
      throw new ServerUnavailableError('the subscription stream has no body', 'unavailable');
    }
    const events = readEvents(response.body);
    try {
      const first = await events.next();
      const id = subscriptionId(first.done ? undefined : first.value);
      return new Subscription(id, events, controller, onClose);
    } catch (error) {
      controller.abort();
      throw error instanceof HebbsError ? error : streamFailed(error);
    }
  }

  /** Whether the stream is over (closed here, ended by the server, or failed). */
  get closed(): boolean {
    return this.#closed;
  }

  /** Pushes the server dropped because this consumer fell `queueCapacity` behind (gaps in
   * `sequenceNumber`). */
  get dropped(): number {
    return this.#dropped;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** The next push; `done` once the stream is over. */
  next(): Promise<IteratorResult<SubscribePush>> {
    const pending = this.#pending ?? this.#read();
    this.#pending = undefined;
    return pending;
  }

  /** The next push, or `undefined` if none arrives within `timeoutMs` (the push is not lost:
   * a later call returns it) or the stream is over. */
  async nextPush(timeoutMs?: number): Promise<SubscribePush | undefined> {
    const pending = this.next();
    if (timeoutMs === undefined) {
      const result = await pending;
      return result.done ? undefined : result.value;
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    try {
      const result = await Promise.race([pending, timeout]);
      if (result === 'timeout') {
        // Kept for the next call; marked handled so a failure before then is not an
        // unhandled rejection (the next call still receives it).
        pending.catch(() => undefined);
        this.#pending = pending;
        return undefined;
      }
      return result.done ? undefined : result.value;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Ends the iteration (what `break` in a `for await` loop calls). */
  async return(): Promise<IteratorResult<SubscribePush>> {
    this.close();
    return { done: true, value: undefined };
  }

  /** Aborts the stream; the server closes the subscription. Safe to call more than once. */
  close(): void {
    if (!this.#closed) {
      this.#closed = true;
      this.#controller.abort();
      this.#onClose(this);
    }
  }

  async #read(): Promise<IteratorResult<SubscribePush>> {
    while (!this.#closed) {
      let step: IteratorResult<ServerEvent>;
      try {
        step = await this.#events.next();
      } catch (error) {
        if (this.#closed) {
          break;
        }
        this.close();
        throw streamFailed(error);
      }
      if (step.done || step.value.event === END_EVENT) {
        this.close();
        break;
      }
      const event = step.value;
      if (event.event === ERROR_EVENT) {
        this.close();
        throw errorFromResponse(500, parseData(event));
      }
      if (event.event === PUSH_EVENT) {
        return { done: false, value: this.#count(decode(parseData(event)) as SubscribePush) };
      }
    }
    return { done: true, value: undefined };
  }

  #count(push: SubscribePush): SubscribePush {
    if (this.#lastSequence !== undefined && push.sequenceNumber > this.#lastSequence + 1) {
      this.#dropped += push.sequenceNumber - this.#lastSequence - 1;
    }
    this.#lastSequence = push.sequenceNumber;
    return push;
  }
}

function parseData(event: ServerEvent): unknown {
  try {
    return JSON.parse(event.data);
  } catch (error) {
    throw streamFailed(error);
  }
}

function subscriptionId(event: ServerEvent | undefined): number {
  const data = event?.event === SUBSCRIBED_EVENT ? parseData(event) : undefined;
  const id = isObject(data) ? data['subscription_id'] : undefined;
  if (typeof id !== 'number' || !Number.isInteger(id)) {
    throw new ServerUnavailableError(
      `the subscription stream did not start with its id: ${event?.data ?? 'it ended'}`,
      'unavailable',
    );
  }
  return id;
}

function streamFailed(error: unknown): ServerUnavailableError {
  const detail = error instanceof Error ? error.message : String(error);
  return new ServerUnavailableError(
    `the subscription stream failed: ${detail}`,
    'unavailable',
    undefined,
    {
      cause: error,
    },
  );
}
