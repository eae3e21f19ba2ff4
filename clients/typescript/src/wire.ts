/**
 * Values to and from the server's JSON, with the names of `names.ts`: request options become
 * snake_case bodies and query strings, answers become the camelCase types of `types.ts`.
 *
 * Going out: ids given as bytes become 32 hex digits (16 bytes exactly, else an
 * `InvalidInputError` naming the field before anything is sent), a `Date` becomes microseconds
 * since the epoch, a `Float32Array` a list of numbers, and fields left `undefined` are left out,
 * so the server applies its defaults. Coming in: the id fields (`ID_KEYS`, and each id of
 * `ID_LIST_KEYS`) become `Buffer`s,
 * `null` becomes `undefined` (a memory's `embedding` an empty list), a strategy error's
 * `field` is named like the option it names, and `id_hex` is dropped
 * (`memory.id.toString('hex')` is the same).
 */

import { ID_BYTES } from './constants.js';
import { InvalidInputError, isObject } from './errors.js';
import { fieldFromWire, fromWireName, OPAQUE, toWireName } from './names.js';
import type { MemoryIdLike } from './options.js';

/** Wire keys holding an id (32 hex digits) that the client returns as a `Buffer`. */
const ID_KEYS: ReadonlySet<string> = new Set(['id', 'neighbor_id', 'next_cursor', 'target']);
/** Wire keys holding a list of ids (an insight's `source_ids`), returned as `Buffer`s. */
const ID_LIST_KEYS: ReadonlySet<string> = new Set(['source_ids']);
/** Wire keys the client does not return (derived from another field). */
const DROPPED_KEYS: ReadonlySet<string> = new Set(['id_hex']);
/** Wire keys whose value names an input (a strategy error's `field`): renamed like a key. */
const FIELD_KEYS: ReadonlySet<string> = new Set(['field']);
/** Wire keys whose `null` is an empty list. */
const LIST_KEYS: ReadonlySet<string> = new Set(['embedding']);

/** A JSON value as sent. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** `value` (a request option) as JSON; `field` names it, in the client's names, in errors. */
export function encode(value: unknown, field: string): Json | undefined {
  if (value === undefined) {
    return undefined;
  }
  if (value === null || typeof value === 'boolean' || typeof value === 'string') {
    return value;
  }
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) {
      throw new InvalidInputError(field, `${value} is not finite`);
    }
    return value;
  }
  if (value instanceof Float32Array || value instanceof Float64Array) {
    return Array.from(value);
  }
  if (value instanceof Uint8Array) {
    return idHex(value, field);
  }
  if (value instanceof Date) {
    return micros(value, field);
  }
  if (Array.isArray(value)) {
    return value.map((item: unknown, index) => encode(item, `${field}[${index}]`) ?? null);
  }
  if (isObject(value)) {
    return encodeObject(value, field);
  }
  throw new InvalidInputError(field, `${typeof value} has no JSON form`);
}

/** The JSON body of an options object: its given fields under their wire names. */
export function encodeObject(options: object, prefix = ''): { [key: string]: Json } {
  const body: { [key: string]: Json } = {};
  for (const [name, value] of Object.entries(options)) {
    const wire = toWireName(name);
    const field = prefix === '' ? name : `${prefix}.${name}`;
    const encoded = OPAQUE.has(wire) ? (value as Json | undefined) : encode(value, field);
    if (encoded !== undefined) {
      body[wire] = encoded;
    }
  }
  return body;
}

/** The query string of GET options (booleans as `true`/`false`, ids as hex). */
export function encodeQuery(options: object): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(encodeObject(options))) {
    if (value !== null) {
      params.set(name, typeof value === 'object' ? JSON.stringify(value) : String(value));
    }
  }
  const query = params.toString();
  return query === '' ? '' : `?${query}`;
}

/** An id as sent: bytes as 32 hex digits, text as given (the server checks it and names
 * `field`). */
export function idText(id: MemoryIdLike, field: string): string {
  if (typeof id === 'string') {
    return id;
  }
  if (id instanceof Uint8Array) {
    return idHex(id, field);
  }
  throw new InvalidInputError(field, 'expected a Buffer of 16 bytes or 32 hex digits');
}

function idHex(bytes: Uint8Array, field: string): string {
  if (bytes.length !== ID_BYTES) {
    throw new InvalidInputError(field, `expected ${ID_BYTES} bytes, got ${bytes.length}`);
  }
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('hex');
}

function micros(date: Date, field: string): number {
  const millis = date.getTime();
  if (!Number.isFinite(millis)) {
    throw new InvalidInputError(field, 'an invalid Date');
  }
  return millis * 1000;
}

/** An answer in the client's names and types: see the module comment. */
export function decode(value: unknown): unknown {
  if (Array.isArray(value)) {
    return value.map(decode);
  }
  if (!isObject(value)) {
    return value === null ? undefined : value;
  }
  const out: Record<string, unknown> = {};
  for (const [wire, item] of Object.entries(value)) {
    if (DROPPED_KEYS.has(wire)) {
      continue;
    }
    out[fromWireName(wire)] = decodeField(wire, item);
  }
  return out;
}

function decodeField(wire: string, value: unknown): unknown {
  if (value === null) {
    return LIST_KEYS.has(wire) ? [] : undefined;
  }
  if (OPAQUE.has(wire)) {
    return value;
  }
  if (ID_KEYS.has(wire) && typeof value === 'string') {
    return Buffer.from(value, 'hex');
  }
  if (ID_LIST_KEYS.has(wire) && Array.isArray(value)) {
    return value.map((item: unknown) =>
      typeof item === 'string' ? Buffer.from(item, 'hex') : item,
    );
  }
  if (FIELD_KEYS.has(wire) && typeof value === 'string') {
    return fieldFromWire(value);
  }
  return decode(value);
}
