/**
 * The client's own code without a server: the names and values of the wire, the error table,
 * and the event stream reader, whose chunked reading is checked against a naive parse of the
 * whole text over many random splits. It imports the sources' own build (`build/src`), not the
 * package, so its error classes are the ones the internal functions throw.
 */

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import {
  AuthError,
  ConflictError,
  ERROR_CLASSES,
  ForbiddenError,
  InternalError,
  InvalidInputError,
  LLMError,
  NotFoundError,
  PayloadTooLargeError,
  RateLimitError,
  ServerUnavailableError,
} from '../src/index.js';

import { errorFromResponse } from '../src/errors.js';
import { fieldFromWire, fromWireName, toWireName } from '../src/names.js';
import { readEvents, type ServerEvent } from '../src/sse.js';
import { decode, encode, encodeObject, encodeQuery } from '../src/wire.js';

describe('names', () => {
  test('camelCase to snake_case and back', () => {
    const pairs = [
      ['topK', 'top_k'],
      ['maxAgeUs', 'max_age_us'],
      ['wRelevance', 'w_relevance'],
      ['bm25Score', 'bm25_score'],
      ['contentSha256', 'content_sha256'],
      ['targetId', 'target'],
      ['content', 'content'],
    ] as const;
    for (const [client, wire] of pairs) {
      assert.equal(toWireName(client), wire);
      assert.equal(fromWireName(wire), client);
    }
  });

  test('a field path is renamed part by part, but not inside an opaque object', () => {
    assert.equal(fieldFromWire('items[1].entity_id'), 'items[1].entityId');
    assert.equal(fieldFromWire('edges[0].target'), 'edges[0].targetId');
    assert.equal(fieldFromWire('strategies[2].seed_memory_id'), 'strategies[2].seedMemoryId');
    assert.equal(fieldFromWire('context.user_name'), 'context.user_name');
    assert.equal(fieldFromWire('body'), 'body');
  });
});

describe('encode', () => {
  test('options become the snake_case body, undefined fields left out', () => {
    const id = Buffer.alloc(16, 0xab);
    const body = encodeObject({
      cue: 'x',
      topK: 3,
      entityId: undefined,
      timeRange: [new Date(1_000), null],
      strategies: [
        'similarity',
        { strategy: 'causal', seedMemoryId: id, edgeTypes: ['caused_by'] },
      ],
      scoringWeights: { wRelevance: 1, maxAgeUs: 5 },
      cueContext: { camelKey: { innerKey: 1 } },
      filter: { 'context.camelKey': { $gte: 2 }, $not: { entity_id: 'a' } },
      cueEmbedding: new Float32Array([0.5, 0.25]),
    });
    assert.deepEqual(body, {
      cue: 'x',
      top_k: 3,
      time_range: [1_000_000, null],
      strategies: [
        'similarity',
        { strategy: 'causal', seed_memory_id: 'ab'.repeat(16), edge_types: ['caused_by'] },
      ],
      scoring_weights: { w_relevance: 1, max_age_us: 5 },
      cue_context: { camelKey: { innerKey: 1 } },
      filter: { 'context.camelKey': { $gte: 2 }, $not: { entity_id: 'a' } },
      cue_embedding: [0.5, 0.25],
    });
  });

  test('an edge target is sent as target', () => {
    const id = Buffer.alloc(16, 1);
    assert.deepEqual(encode([{ targetId: id, edgeType: 'caused_by', confidence: 0.5 }], 'edges'), [
      { target: '01'.repeat(16), edge_type: 'caused_by', confidence: 0.5 },
    ]);
  });

  test('what cannot be sent is refused, naming the field', () => {
    const refuses = (value: unknown, field: string): void => {
      assert.throws(
        () => encodeObject(value as object),
        (error: unknown) => error instanceof InvalidInputError && error.field === field,
      );
    };
    refuses({ ids: [Buffer.alloc(16), Buffer.alloc(15)] }, 'ids[1]');
    refuses({ importance: Number.POSITIVE_INFINITY }, 'importance');
    refuses({ createdAt: new Date(Number.NaN) }, 'createdAt');
    refuses(
      { strategies: [{ strategy: 'causal', seedMemoryId: new Uint8Array(1) }] },
      'strategies[0].seedMemoryId',
    );
    refuses({ cue: () => 'x' }, 'cue');
  });

  test('query strings use the wire names', () => {
    assert.equal(
      encodeQuery({ entityId: 'a b', includeSuperseded: true, limit: 5, kind: undefined }),
      '?entity_id=a+b&include_superseded=true&limit=5',
    );
    assert.equal(encodeQuery({}), '');
  });
});

describe('decode', () => {
  test('ids become Buffers, nulls undefined, a missing embedding empty', () => {
    const memory = decode({
      id: '0f'.repeat(16),
      id_hex: '0f'.repeat(16),
      entity_id: null,
      embedding: null,
      context: { some_key: null },
      created_at: 5,
    });
    assert.deepEqual(memory, {
      id: Buffer.alloc(16, 0x0f),
      entityId: undefined,
      embedding: [],
      context: { some_key: null },
      createdAt: 5,
    });
  });

  test('nested results, cursors, scores and strategy error fields', () => {
    const output = decode({
      results: [
        {
          scores: { final: 1, rrf_x: 2 },
          expansion_context: [{ neighbor_id: '01'.repeat(16) }],
        },
      ],
      strategy_errors: [{ strategy: 'temporal', message: 'm', field: 'entity_id' }],
      next_cursor: null,
    });
    assert.deepEqual(output, {
      results: [
        {
          scores: { final: 1, rrf_x: 2 },
          expansionContext: [{ neighborId: Buffer.alloc(16, 1) }],
        },
      ],
      strategyErrors: [{ strategy: 'temporal', message: 'm', field: 'entityId' }],
      nextCursor: undefined,
    });
    assert.deepEqual(decode([null, { id: '00'.repeat(16) }]), [
      undefined,
      { id: Buffer.alloc(16) },
    ]);
  });

  test("an insight's source ids are Buffers, its memory a memory", () => {
    const insight = decode({
      memory: { id: '02'.repeat(16), id_hex: '02'.repeat(16), entity_id: null, embedding: null },
      confidence: 0.5,
      source_ids: ['00'.repeat(16), '01'.repeat(16)],
      stale: false,
    });
    assert.deepEqual(insight, {
      memory: { id: Buffer.alloc(16, 2), entityId: undefined, embedding: [] },
      confidence: 0.5,
      sourceIds: [Buffer.alloc(16), Buffer.alloc(16, 1)],
      stale: false,
    });
  });
});

describe('errors', () => {
  test('each error_code is its class', () => {
    const cases: [string, number, new (...args: never[]) => Error][] = [
      ['not_found', 404, NotFoundError],
      ['unauthorized', 401, AuthError],
      ['forbidden', 403, ForbiddenError],
      ['not_ready', 503, ServerUnavailableError],
      ['storage_error', 500, InternalError],
      ['corruption', 500, InternalError],
      ['llm_error', 502, LLMError],
    ];
    for (const [code, status, Class] of cases) {
      const error = errorFromResponse(status, { error_code: code, message: 'm', field: null });
      assert.ok(error instanceof Class, code);
      assert.equal(error.code, code);
      assert.equal(error.status, status);
      assert.equal(ERROR_CLASSES[code], Class);
    }
  });

  test('an input error names the field in client names, its reason without the prefix', () => {
    const error = errorFromResponse(400, {
      error_code: 'invalid_input',
      message: 'invalid scoring_weights.w_relevance: expected a number',
      field: 'scoring_weights.w_relevance',
    });
    assert.ok(error instanceof InvalidInputError);
    assert.equal(error.field, 'scoringWeights.wRelevance');
    assert.equal(error.wireField, 'scoring_weights.w_relevance');
    assert.equal(error.reason, 'expected a number');
    assert.equal(error.message, 'invalid scoringWeights.wRelevance: expected a number');
  });

  test('a conflict names the field in client names, its reason without the prefix', () => {
    const error = errorFromResponse(409, {
      error_code: 'conflict',
      message: 'conflict on items[2].id: a memory with id 0a exists already',
      field: 'items[2].id',
    });
    assert.ok(error instanceof ConflictError);
    assert.equal(error.field, 'items[2].id');
    assert.equal(error.reason, 'a memory with id 0a exists already');
    assert.equal(error.message, 'conflict on items[2].id: a memory with id 0a exists already');
    const unknown = errorFromResponse(409, { error_code: 'newer_conflict', message: 'm' });
    assert.ok(unknown instanceof ConflictError && unknown.field === 'body');
  });

  test('unknown codes and bodies fall back on the status', () => {
    assert.ok(errorFromResponse(404, 'not json') instanceof NotFoundError);
    assert.ok(errorFromResponse(502, undefined) instanceof ServerUnavailableError);
    assert.ok(errorFromResponse(500, { error_code: 'new_kind' }) instanceof InternalError);
    const big = errorFromResponse(413, {});
    assert.ok(big instanceof PayloadTooLargeError && big.field === 'body');
    const limited = errorFromResponse(429, { error_code: 'rate_limited', message: 'slow' }, '7');
    assert.ok(limited instanceof RateLimitError && limited.retryAfter === 7);
    const unsaid = errorFromResponse(429, {}, null);
    assert.ok(unsaid instanceof RateLimitError && unsaid.retryAfter === undefined);
  });
});

/** A deterministic generator of numbers in [0, 1) (mulberry32), so a failure replays. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The events of a whole stream, parsed the naive way: split every line ending at once. */
function naive(text: string): ServerEvent[] {
  const events: ServerEvent[] = [];
  let event = '';
  let data: string[] = [];
  let id: string | undefined;
  const lines = text.split(/\r\n|\r|\n/);
  lines.pop(); // what follows the last line ending is an incomplete line
  for (const line of lines) {
    if (line === '') {
      if (data.length > 0) {
        events.push({ event: event === '' ? 'message' : event, data: data.join('\n'), id });
      }
      event = '';
      data = [];
    } else if (!line.startsWith(':')) {
      const colon = line.indexOf(':');
      const name = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (name === 'data') data.push(value);
      else if (name === 'event') event = value;
      else if (name === 'id') id = value;
    }
  }
  return events;
}

function streamOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
}

describe('the event stream reader', () => {
  test('chunked reading equals the naive parse, over random streams and splits', async () => {
    const next = random(20_240_601);
    const endings = ['\n', '\r\n', '\r'];
    const pieces = [
      'event: push',
      'event: subscribed',
      'id: 7',
      'data: {"memory": {"content": "Zürich ☕ naïve 🚀"}}',
      'data:{"a":1}',
      'data',
      ': keepalive',
      'retry: 10',
      '',
      '',
    ];
    for (let round = 0; round < 300; round += 1) {
      let text = '';
      const lines = 1 + Math.floor(next() * 30);
      for (let i = 0; i < lines; i += 1) {
        text += pieces[Math.floor(next() * pieces.length)]! + endings[Math.floor(next() * 3)]!;
      }
      if (next() < 0.5) text += 'data: an incomplete last line';
      const bytes = new TextEncoder().encode(text);
      const chunks: Uint8Array[] = [];
      for (let start = 0; start < bytes.length;) {
        const size = 1 + Math.floor(next() * 8);
        chunks.push(bytes.slice(start, start + size));
        start += size;
      }
      const events: ServerEvent[] = [];
      for await (const event of readEvents(streamOf(chunks))) events.push(event);
      assert.deepEqual(events, naive(text), JSON.stringify(text));
    }
  });

  test("the server's format: an id, a named event, data, keep-alives", async () => {
    const text =
      'event: subscribed\ndata: {"subscription_id": 3}\n\n: keepalive\n\n' +
      'event: push\nid: 1\ndata: {"sequence_number": 1}\n\n';
    const events: ServerEvent[] = [];
    for await (const event of readEvents(streamOf([new TextEncoder().encode(text)]))) {
      events.push(event);
    }
    assert.deepEqual(events, [
      { event: 'subscribed', data: '{"subscription_id": 3}', id: undefined },
      { event: 'push', data: '{"sequence_number": 1}', id: '1' },
    ]);
  });
});
