/**
 * One error class per kind of failure, and the one table from the server's `error_code` to it.
 *
 * The server answers a failure with an HTTP status and `{"error_code", "message", "field"}`.
 * `ERROR_CLASSES` maps the code to the class (the classes the Python client raises for the same
 * codes); a code it does not know (a newer server) falls back on the status (`STATUS_CLASSES`).
 * Input errors, conflicts (409, which name a field as input errors do) and rate limits carry more
 * than a message, so are built apart.
 * A request that gets no answer (refused, reset, timed out) is a `ServerUnavailableError`.
 */

import { fieldFromWire } from './names.js';

/** The base of every error the client throws. */
export class HebbsError extends Error {
  /** The server's `error_code` (`'not_found'`, ...), or the client's own for local failures. */
  readonly code: string;
  /** The HTTP status, when the server answered. */
  readonly status: number | undefined;

  constructor(message: string, code = 'error', status?: number, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    this.status = status;
  }
}

/** A bad argument. `field` names it in the client's camelCase (`scoringWeights.wRelevance`,
 * `items[1].content`), `wireField` as the server spelled it (`scoring_weights.w_relevance`). */
export class InvalidInputError extends HebbsError {
  readonly field: string;
  readonly wireField: string;
  /** What is wrong with it, without the field. */
  readonly reason: string;

  constructor(
    field: string,
    reason: string,
    code = 'invalid_input',
    status?: number,
    wireField = field,
  ) {
    super(`invalid ${field}: ${reason}`, code, status);
    this.field = field;
    this.wireField = wireField;
    this.reason = reason;
  }
}

/** The request body was larger than the server accepts (413); `field` is `body`. */
export class PayloadTooLargeError extends InvalidInputError {}

/** No such memory or tombstone in the caller's tenant, or no such path (404). */
export class NotFoundError extends HebbsError {}

/** The server refused the API key: missing, unknown, revoked or expired (401), or without the
 * scope the call needs (403, also a `ForbiddenError`). */
export class AuthError extends HebbsError {}

/** The key is valid but its scope is too weak for the call (403). */
export class ForbiddenError extends AuthError {}

/** The key sent too many requests (429); wait `retryAfter` seconds. */
export class RateLimitError extends HebbsError {
  readonly retryAfter: number | undefined;

  constructor(
    message: string,
    retryAfter: number | undefined,
    code = 'rate_limited',
    status = 429,
  ) {
    super(message, code, status);
    this.retryAfter = retryAfter;
  }
}

/** A well-formed request that contradicts the store's state (409 `conflict`): revising a memory
 * a newer revision superseded already (`field` `id`), importing an id the store holds. `field`
 * and `wireField` name the argument as `InvalidInputError` does; nothing was written. */
export class ConflictError extends HebbsError {
  readonly field: string;
  readonly wireField: string;
  /** What in the store it contradicts, without the field. */
  readonly reason: string;

  constructor(field: string, reason: string, code = 'conflict', status = 409, wireField = field) {
    super(`conflict on ${field}: ${reason}`, code, status);
    this.field = field;
    this.wireField = wireField;
    this.reason = reason;
  }
}

/** The server could not be reached, timed out, or is starting or stopping (503). */
export class ServerUnavailableError extends HebbsError {}

/** The server's LLM provider failed during `reflect()` (502, `llm_error`): unreachable, still
 * answering 429 / 5xx after its retries, or twice answering JSON that does not fit the task. */
export class LLMError extends HebbsError {}

/** The engine failed (5xx: storage, I/O, corruption, index, internal); never bad input. */
export class InternalError extends HebbsError {}

/** A call on a closed client or subscription. */
export class ClosedError extends HebbsError {}

type ErrorClass = new (message: string, code: string, status: number) => HebbsError;

/** `error_code` → the class thrown for it (input and rate errors are built apart). */
export const ERROR_CLASSES: Readonly<Record<string, ErrorClass>> = {
  not_found: NotFoundError,
  unauthorized: AuthError,
  forbidden: ForbiddenError,
  not_ready: ServerUnavailableError,
  // A cluster's shard that no longer owns the key's tenant, after the client's retries.
  moved: ServerUnavailableError,
  closed: ClosedError,
  storage_error: InternalError,
  io_error: InternalError,
  corruption: InternalError,
  index_error: InternalError,
  text_index_error: InternalError,
  internal_error: InternalError,
  llm_error: LLMError,
};

/** HTTP status → the class for an answer whose `error_code` the table does not know. */
export const STATUS_CLASSES: Readonly<Record<number, ErrorClass>> = {
  401: AuthError,
  403: ForbiddenError,
  404: NotFoundError,
  502: ServerUnavailableError,
  503: ServerUnavailableError,
  504: ServerUnavailableError,
};

/** The codes of a bad input (400 and 413, and 422 from a proxy), and their statuses. */
const INPUT_CODES = new Set(['invalid_input', 'invalid_type', 'payload_too_large']);
const INPUT_STATUSES = new Set([400, 413, 422]);
/** The code and status of a conflict. */
const CONFLICT_CODE = 'conflict';
const CONFLICT_STATUS = 409;
/** The field an input error names when the server names none (a body too large). */
export const BODY_FIELD = 'body';

/** The error for an answer with HTTP `status`, JSON `body` and the `Retry-After` header. */
export function errorFromResponse(
  status: number,
  body: unknown,
  retryAfterHeader?: string | null,
): HebbsError {
  const data = isObject(body) ? body : {};
  const code = typeof data['error_code'] === 'string' ? data['error_code'] : statusCode(status);
  const message =
    typeof data['message'] === 'string' && data['message'] !== ''
      ? data['message']
      : `the server answered HTTP ${status}`;
  const known = code in ERROR_CLASSES || INPUT_CODES.has(code);
  if (code === CONFLICT_CODE || (!known && status === CONFLICT_STATUS)) {
    const [wireField, reason] = fieldAndReason(data, message, 'conflict on');
    return new ConflictError(fieldFromWire(wireField), reason, code, status, wireField);
  }
  if (INPUT_CODES.has(code) || (!(code in ERROR_CLASSES) && INPUT_STATUSES.has(status))) {
    const [wireField, reason] = fieldAndReason(data, message, 'invalid');
    const Class =
      code === 'payload_too_large' || status === 413 ? PayloadTooLargeError : InvalidInputError;
    return new Class(fieldFromWire(wireField), reason, code, status, wireField);
  }
  if (code === 'rate_limited' || status === 429) {
    return new RateLimitError(
      message,
      retryAfter(data['retry_after'], retryAfterHeader),
      code,
      status,
    );
  }
  const Class =
    ERROR_CLASSES[code] ?? STATUS_CLASSES[status] ?? (status >= 500 ? InternalError : HebbsError);
  return new Class(message, code, status);
}

/** The field an answer names (as the server spells it) and its reason: `message` without the
 * `"<word> <field>: "` the server puts before it. */
function fieldAndReason(
  data: Record<string, unknown>,
  message: string,
  word: string,
): [string, string] {
  const wireField =
    typeof data['field'] === 'string' && data['field'] !== '' ? data['field'] : BODY_FIELD;
  const prefix = `${word} ${wireField}: `;
  return [wireField, message.startsWith(prefix) ? message.slice(prefix.length) : message];
}

/** The error for a request to `url` that got no answer. */
export function unavailable(url: string, cause: unknown): ServerUnavailableError {
  const detail = cause instanceof Error ? describe(cause) : String(cause);
  return new ServerUnavailableError(
    `hebbs server at ${url} unavailable: ${detail}`,
    'unavailable',
    undefined,
    { cause },
  );
}

function describe(error: Error): string {
  const inner = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${inner}`;
}

function statusCode(status: number): string {
  return `http_${status}`;
}

function retryAfter(body: unknown, header: string | null | undefined): number | undefined {
  for (const value of [body, header]) {
    const seconds = typeof value === 'string' ? Number(value) : value;
    if (typeof seconds === 'number' && Number.isFinite(seconds) && value !== '') {
      return seconds;
    }
  }
  return undefined;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
