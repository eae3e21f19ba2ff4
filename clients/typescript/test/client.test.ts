/**
 * Every call of `HebbsClient` against a real `hebbs serve` on 127.0.0.1 with the bundled
 * embedding model: what each returns, in the client's names and types.
 */

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';

import {
  ConflictError,
  DEFAULT_TOP_K,
  EdgeType,
  HebbsClient,
  InvalidInputError,
  type Memory,
  MemoryKind,
  NotFoundError,
  RecallStrategy,
  type RecallStrategyConfig,
  type ScoringWeights,
} from '@hebbs/sdk';

import { rejectsNaming } from './expect.js';
import { startServer, type TestServer } from './server.js';

/** How close two float32 scores must be to count as equal. */
const EPSILON = 1e-5;

let server: TestServer;
let client: HebbsClient;
let discount: Memory;
let weather: Memory;
let signed: Memory;
const signedAt = new Date('2025-03-14T09:26:53Z');

before(async () => {
  server = await startServer({
    writer: { tenant: 'acme', scope: 'write' },
    admin: { tenant: 'acme', scope: 'admin' },
  });
  client = new HebbsClient({ url: server.url, apiKey: server.keys['writer']!.key });
  discount = await client.remember({
    content: 'Acme asked for a 20% discount on the annual plan',
    entityId: 'acme',
    importance: 0.9,
    context: { dealStage: 'negotiation', seat_count: 40 },
    sessionId: 'call-1',
  });
  weather = await client.remember('The weather in Lisbon was sunny all week');
  signed = await client.remember({
    content: 'Acme signed the contract once the discount was approved',
    entityId: 'acme',
    importance: 0.6,
    createdAt: signedAt,
    edges: [{ targetId: discount.id, edgeType: EdgeType.CAUSED_BY, confidence: 0.9 }],
  });
});

after(async () => {
  client?.close();
  await server?.stop();
});

describe('remember and get', () => {
  test('remember returns the stored memory in camelCase with a Buffer id', () => {
    assert.ok(Buffer.isBuffer(discount.id));
    assert.equal(discount.id.length, 16);
    assert.equal(discount.content, 'Acme asked for a 20% discount on the annual plan');
    assert.equal(discount.entityId, 'acme');
    assert.ok(Math.abs(discount.importance - 0.9) < EPSILON);
    assert.equal(discount.kind, MemoryKind.EPISODE);
    assert.equal(discount.superseded, false);
    assert.deepEqual(discount.embedding, []);
    assert.equal(discount.accessCount, 0);
    assert.ok(Math.abs(discount.createdAt / 1000 - Date.now()) < 60_000);
    assert.equal(discount.updatedAt, discount.createdAt);
    assert.equal('idHex' in discount, false);
  });

  test("the caller's context keys are sent and returned untouched", () => {
    assert.deepEqual(discount.context, { dealStage: 'negotiation', seat_count: 40 });
  });

  test('a string is the content alone; no entity is undefined', () => {
    assert.equal(weather.content, 'The weather in Lisbon was sunny all week');
    assert.equal(weather.entityId, undefined);
    assert.ok(Math.abs(weather.importance - 0.5) < EPSILON);
  });

  test('a Date is sent as microseconds', () => {
    assert.equal(signed.createdAt, signedAt.getTime() * 1000);
  });

  test('kind insight is stored', async () => {
    const insight = await client.remember({
      content: 'Discounts close enterprise deals',
      kind: 'insight',
      entityId: 'lessons',
    });
    assert.equal(insight.kind, MemoryKind.INSIGHT);
  });

  test('get returns the memory, with its embedding when asked', async () => {
    const plain = await client.get(discount.id);
    assert.deepEqual(plain.id, discount.id);
    assert.deepEqual(plain.embedding, []);
    const full = await client.get(discount.id.toString('hex'), { includeEmbedding: true });
    assert.equal(full.embedding.length, 384);
    assert.ok(full.embedding.every((x) => typeof x === 'number' && Number.isFinite(x)));
  });

  test('get takes an id with or without the UUID hyphens, and no other spelling', async () => {
    const hex = discount.id.toString('hex');
    const dashed = [0, 8, 12, 16, 20]
      .map((start, i, starts) => hex.slice(start, starts[i + 1] ?? 32))
      .join('-');
    assert.deepEqual((await client.get(dashed)).id, discount.id);
    assert.deepEqual((await client.get(dashed.toUpperCase())).id, discount.id);
    await assert.rejects(client.get(`{${dashed}}`), InvalidInputError);
  });

  test('get of an unknown id is a NotFoundError', async () => {
    await assert.rejects(client.get(Buffer.alloc(16, 7)), (error: unknown) => {
      assert.ok(error instanceof NotFoundError);
      assert.equal(error.status, 404);
      assert.equal(error.code, 'not_found');
      return true;
    });
  });

  test('rememberMany stores every item in order', async () => {
    const stored = await client.rememberMany([
      'Bulk note one about invoices',
      { content: 'Bulk note two about invoices', entityId: 'bulk', importance: 0.2 },
      {
        content: 'Bulk note three about invoices',
        entityId: 'bulk',
        embedding: new Float32Array(384).fill(0.05),
      },
    ]);
    assert.deepEqual(
      stored.map((memory) => memory.content),
      [
        'Bulk note one about invoices',
        'Bulk note two about invoices',
        'Bulk note three about invoices',
      ],
    );
    const read = await client.get(stored[2]!.id, { includeEmbedding: true });
    assert.ok(read.embedding.every((x) => Math.abs(x - read.embedding[0]!) < EPSILON));
  });

  test('getMany answers in order, undefined where a memory does not exist', async () => {
    const found = await client.getMany([
      discount.id,
      Buffer.alloc(16, 9),
      weather.id.toString('hex'),
    ]);
    assert.equal(found.length, 3);
    assert.deepEqual(found[0]?.id, discount.id);
    assert.equal(found[1], undefined);
    assert.deepEqual(found[2]?.id, weather.id);
    const embedded = await client.getMany([discount.id], { includeEmbedding: true });
    assert.equal(embedded[0]?.embedding.length, 384);
  });
});

describe('listings', () => {
  test('listMemories pages with nextCursor, and memories() walks every page', async () => {
    const seen: string[] = [];
    let cursor: Buffer | undefined;
    let pages = 0;
    do {
      const page = await client.listMemories({ limit: 2, cursor });
      assert.ok(page.memories.length <= 2);
      seen.push(...page.memories.map((memory) => memory.id.toString('hex')));
      cursor = page.nextCursor;
      pages += 1;
    } while (cursor !== undefined);
    assert.ok(pages >= 2);
    const all: string[] = [];
    for await (const memory of client.memories({ limit: 3 })) {
      all.push(memory.id.toString('hex'));
    }
    assert.deepEqual(all, seen);
    assert.ok(seen.includes(discount.id.toString('hex')));
    assert.equal(new Set(seen).size, seen.length);
  });

  test('countMemories counts what every page of listMemories holds', async () => {
    for (const selection of [{}, { entityId: 'acme' }, { kind: MemoryKind.INSIGHT }]) {
      let listed = 0;
      for await (const memory of client.memories(selection)) {
        assert.ok(memory.id.length === 16);
        listed += 1;
      }
      assert.equal(await client.countMemories(selection), listed);
    }
    await rejectsNaming(client.countMemories({ entityId: '' }), 'entityId', 'entity_id');
  });

  test('a key names the newest memory: getByKeys, keyPrefix and forget by keys', async () => {
    const first = await client.remember({ content: 'the first draft', key: 'ts/doc/1' });
    assert.equal(first.key, 'ts/doc/1');
    const second = await client.remember({ content: 'the second draft', key: 'ts/doc/1' });
    await client.remember({ content: 'another document', key: 'ts/doc/2' });
    const [found, missing] = await client.getByKeys(['ts/doc/1', 'ts/none']);
    assert.equal(found?.id.toString('hex'), second.id.toString('hex'));
    assert.equal(found?.content, 'the second draft');
    assert.equal(missing, undefined);
    const [gone] = await client.getMany([first.id]);
    assert.equal(gone, undefined);
    const keys = (await client.listMemories({ keyPrefix: 'ts/doc/' })).memories.map((m) => m.key);
    assert.deepEqual(keys.sort(), ['ts/doc/1', 'ts/doc/2']);
    assert.equal(await client.countMemories({ keyPrefix: 'ts/doc/' }), 2);
    assert.equal((await client.forget({ keys: ['ts/doc/2'] })).forgottenCount, 1);
    assert.equal(await client.countMemories({ keyPrefix: 'ts/' }), 1);
    await rejectsNaming(client.remember({ content: 'x', key: '' }), 'key');
    await client.forget({ keys: ['ts/doc/1'] });
  });

  test("listMemories with entityId is that entity's timeline", async () => {
    const page = await client.listMemories({ entityId: 'acme' });
    assert.ok(page.memories.length >= 2);
    assert.ok(page.memories.every((memory) => memory.entityId === 'acme'));
    const times = page.memories.map((memory) => memory.createdAt);
    assert.deepEqual(
      times,
      [...times].sort((a, b) => a - b),
    );
    assert.equal(page.nextCursor, undefined);
  });

  test('listMemories with kind keeps that kind', async () => {
    const page = await client.listMemories({ kind: MemoryKind.INSIGHT });
    assert.ok(page.memories.length >= 1);
    assert.ok(page.memories.every((memory) => memory.kind === MemoryKind.INSIGHT));
  });

  test('getChatContext returns what the session touched', async () => {
    const context = await client.getChatContext('call-1');
    assert.deepEqual(
      context.map((memory) => memory.id),
      [discount.id],
    );
    assert.deepEqual(await client.getChatContext('never-used', { limit: 5 }), []);
  });

  test('listOrphans lists memories without edges, and addEdges takes one off', async () => {
    const lonely = await client.remember('A lonely note about parking permits');
    const before = await client.listOrphans({ limit: 1000 });
    assert.ok(before.some((memory) => memory.id.equals(lonely.id)));
    assert.ok(!before.some((memory) => memory.id.equals(discount.id)));
    await client.addEdges(lonely.id, [
      { targetId: weather.id.toString('hex'), edgeType: 'related_to' },
    ]);
    const after = await client.listOrphans({ limit: 1000 });
    assert.ok(!after.some((memory) => memory.id.equals(lonely.id)));
  });

  test('getEdges gives the edges a memory holds and the ones pointing at it', async () => {
    const cause = await client.remember('The card processor was down on Monday');
    const effect = await client.remember({
      content: 'Orders were charged twice',
      edges: [{ targetId: cause.id, edgeType: EdgeType.CAUSED_BY, confidence: 0.8 }],
    });
    const held = await client.getEdges(effect.id);
    assert.equal(held.length, 1);
    assert.ok(held[0]?.targetId.equals(cause.id));
    assert.equal(held[0]?.edgeType, EdgeType.CAUSED_BY);
    const pointing = await client.getEdges(cause.id, { direction: 'in' });
    assert.ok(pointing[0]?.targetId.equals(effect.id));
    await assert.rejects(client.getEdges('0'.repeat(32)), NotFoundError);
  });

  test('reinforce counts a use of each id, and skips a missing one', async () => {
    const used = await client.remember('A note the agent used about the loading dock');
    await client.reinforce([used.id, used.id.toString('hex'), '0'.repeat(32)]);
    assert.equal((await client.get(used.id)).accessCount, 2);
  });
});

describe('recall', () => {
  test('a string is the cue; the default is hybrid, re-ranked, in composite order', async () => {
    const output = await client.recall('Acme discount on the annual plan');
    assert.ok(output.results.length >= 2 && output.results.length <= DEFAULT_TOP_K);
    const top = output.results[0]!;
    assert.deepEqual(top.memory.id, discount.id);
    const detail = top.strategyDetails[0]!;
    assert.equal(detail.strategy, 'hybrid');
    assert.equal(typeof detail.rerankScore, 'number');
    assert.equal(typeof detail.denseScore, 'number');
    assert.equal(detail.timestamp, undefined);
    assert.deepEqual(output.strategyErrors, []);
    assert.equal(output.belowThreshold, 0);
    assert.ok(Math.abs(top.scores['final']! - top.score) < EPSILON);
    const weights = { relevance: 0.5, recency: 0.2, importance: 0.2, reinforcement: 0.1 };
    for (const result of output.results) {
      const formula = Object.entries(weights).reduce(
        (sum, [signal, weight]) => sum + weight * result.scores[signal]!,
        0,
      );
      assert.ok(Math.abs(formula - result.score) < EPSILON, 'the score is the weighted signals');
    }
    const scores = output.results.map((result) => result.score);
    assert.deepEqual(
      scores,
      [...scores].sort((a, b) => b - a),
    );
  });

  test("strategies: ['similarity'] is the raw cosine path", async () => {
    const output = await client.recall({
      cue: 'Acme discount on the annual plan',
      strategies: ['similarity'],
    });
    const detail = output.results[0]!.strategyDetails[0]!;
    assert.equal(detail.strategy, 'similarity');
    assert.equal(typeof detail.distance, 'number');
    assert.ok(Math.abs(detail.relevance - (1 - detail.distance!)) < 1e-4);
    assert.equal(detail.rerankScore, undefined);
  });

  test("seed 000's pure relevance weights make the score the relevance", async () => {
    const output = await client.recall({
      cue: 'Acme meeting',
      strategies: ['similarity'],
      scoringWeights: { wRelevance: 1.0, wRecency: 0.0, wImportance: 0.0, wReinforcement: 0.0 },
    });
    assert.ok(output.results.length > 0);
    for (const result of output.results) {
      assert.ok(Math.abs(result.score - result.strategyDetails[0]!.relevance) < 1e-4);
    }
  });

  test('importance-only weights rank by importance', async () => {
    const weights: ScoringWeights = {
      wRelevance: 0,
      wRecency: 0,
      wImportance: 1,
      wReinforcement: 0,
    };
    const output = await client.recall({ cue: 'Acme', scoringWeights: weights, topK: 5 });
    for (const result of output.results) {
      assert.ok(Math.abs(result.score - result.memory.importance) < 1e-4);
    }
    assert.deepEqual(output.results[0]?.memory.id, discount.id);
  });

  test('temporal recall by config, with a time range of Dates', async () => {
    const timeline = await client.recall({
      strategies: [{ strategy: RecallStrategy.TEMPORAL, entityId: 'acme' }],
    });
    const ids = timeline.results.map((result) => result.memory.id.toString('hex'));
    assert.ok(ids.includes(discount.id.toString('hex')) && ids.includes(signed.id.toString('hex')));
    assert.ok(
      timeline.results.every((result) => result.strategyDetails[0]?.timestamp !== undefined),
    );
    const windowed = await client.recall({
      strategies: ['temporal'],
      entityId: 'acme',
      timeRange: [new Date(signedAt.getTime() - 1000), new Date(signedAt.getTime() + 1000)],
    });
    assert.deepEqual(
      windowed.results.map((result) => result.memory.id),
      [signed.id],
    );
    const open = await client.recall({
      strategies: ['temporal'],
      entityId: 'acme',
      timeRange: [null, signedAt],
    });
    assert.deepEqual(
      open.results.map((result) => result.memory.id),
      [signed.id],
    );
  });

  test('causal recall walks the edges from seedMemoryId', async () => {
    const output = await client.recall({
      strategies: ['causal'],
      seedMemoryId: signed.id,
      edgeTypes: [EdgeType.CAUSED_BY],
      maxDepth: 2,
      direction: 'both',
    });
    const cause = output.results.find((result) => result.memory.id.equals(discount.id));
    assert.ok(cause !== undefined);
    assert.equal(cause.strategyDetails.find((detail) => detail.strategy === 'causal')?.depth, 1);
    const config: RecallStrategyConfig = {
      strategy: 'causal',
      seedMemoryId: signed.id,
      maxDepth: 1,
      edgeTypes: [EdgeType.FOLLOWED_BY],
    };
    const none = await client.recall({ strategies: [config] });
    assert.ok(!none.results.some((result) => result.memory.id.equals(discount.id)));
  });

  test('a filter narrows every strategy to the memories it selects', async () => {
    const filtered = await client.recall({
      cue: 'Acme discount contract',
      filter: { 'context.seat_count': { $gte: 10 }, 'context.dealStage': 'negotiation' },
    });
    assert.deepEqual(
      filtered.results.map((result) => result.memory.id.toString('hex')),
      [discount.id.toString('hex')],
    );
    const none = await client.recall({
      cue: 'Acme discount contract',
      strategies: ['keyword'],
      filter: { $not: { entity_id: 'acme' } },
    });
    assert.ok(none.results.every((result) => result.memory.entityId !== 'acme'));
    const listed = await client.listMemories({ filter: { 'context.seat_count': 40 } });
    assert.deepEqual(
      listed.memories.map((memory) => memory.id.toString('hex')),
      [discount.id.toString('hex')],
    );
    const primed = await client.prime({ entityId: 'acme', filter: { 'context.seat_count': 40 } });
    assert.deepEqual(
      primed.results.map((result) => result.memory.id.toString('hex')),
      [discount.id.toString('hex')],
    );
  });

  test('analogical recall reports both similarity components', async () => {
    const output = await client.recall({
      cue: 'a customer negotiating price',
      strategies: ['analogical'],
      cueContext: { dealStage: 'negotiation' },
      analogicalAlpha: 0.3,
    });
    const detail = output.results[0]?.strategyDetails[0];
    assert.equal(detail?.strategy, 'analogical');
    assert.equal(typeof detail?.embeddingSimilarity, 'number');
    assert.equal(typeof detail?.structuralSimilarity, 'number');
  });

  test('keyword and hybrid recall carry their text scores', async () => {
    const keyword = await client.recall({ cue: 'discount', strategies: [RecallStrategy.KEYWORD] });
    assert.ok(keyword.results.some((result) => result.memory.id.equals(discount.id)));
    assert.equal(typeof keyword.results[0]?.strategyDetails[0]?.bm25Score, 'number');
    const hybrid = await client.recall({ cue: 'discount', strategies: ['hybrid'], rrfK: 30 });
    const top = hybrid.results[0]!;
    assert.equal(typeof top.strategyDetails[0]?.rrfScore, 'number');
    assert.equal(typeof top.scores['rrf'], 'number');
  });

  test('forceRegex scans content with the cue as the pattern', async () => {
    const output = await client.recall({ cue: 'disc[o]unt on the annual', forceRegex: true });
    assert.deepEqual(
      output.results.map((result) => result.memory.id),
      [discount.id],
    );
  });

  test('minRelevance drops candidates and counts them', async () => {
    const output = await client.recall({ cue: 'Acme discount', minRelevance: 0.99 });
    assert.ok(output.belowThreshold > 0);
    assert.ok(output.results.every((result) => result.strategyDetails[0]!.relevance >= 0.99));
  });

  test('graphContext returns the strongest relationships', async () => {
    const output = await client.recall({
      cue: 'Acme signed the contract',
      graphContext: 2,
      topK: 1,
      scoringWeights: { wRelevance: 1, wRecency: 0, wImportance: 0, wReinforcement: 0 },
    });
    const result = output.results[0]!;
    assert.deepEqual(result.memory.id, signed.id);
    const edge = result.expansionContext.find((each) => each.neighborId.equals(discount.id));
    assert.ok(edge !== undefined);
    assert.equal(edge.edgeType, EdgeType.CAUSED_BY);
    assert.equal(edge.direction, 'outgoing');
    assert.ok(edge.preview.startsWith('Acme asked'));
  });

  test('a strategy without its input is a strategy error naming the option', async () => {
    const output = await client.recall({ cue: 'Acme', strategies: ['similarity', 'temporal'] });
    assert.ok(output.results.length > 0);
    const error = output.strategyErrors.find((each) => each.strategy === 'temporal');
    assert.ok(error !== undefined);
    assert.equal(error.field, 'entityId');
    assert.equal(typeof error.message, 'string');
  });

  test('sessionId records what recall returned, and access counts grow', async () => {
    const output = await client.recall({
      cue: 'sunny weather in Lisbon',
      topK: 1,
      sessionId: 'call-2',
    });
    assert.deepEqual(output.results[0]?.memory.id, weather.id);
    const context = await client.getChatContext('call-2');
    assert.deepEqual(
      context.map((memory) => memory.id),
      [weather.id],
    );
    assert.ok((await client.get(weather.id)).accessCount >= 1);
  });

  test('prime blends the timeline with the cue', async () => {
    const output = await client.prime({ entityId: 'acme', cue: 'discount', maxMemories: 5 });
    assert.ok(output.results.length >= 2);
    assert.ok(output.results.every((result) => result.memory.entityId === 'acme'));
    assert.ok(output.temporalCount >= 1);
    assert.ok(output.similarityCount >= 1);
    const weighted = await client.prime({
      entityId: 'acme',
      scoringWeights: { wImportance: 1, wRelevance: 0, wRecency: 0, wReinforcement: 0 },
      includeEmbedding: true,
    });
    assert.equal(weighted.results[0]?.memory.embedding.length, 384);
  });
});

describe('revise, lineage, forget', () => {
  test('revise supersedes, lineage is oldest first, recall hides the old one', async () => {
    const original = await client.remember({
      content: 'Globex renews in March',
      entityId: 'globex',
      importance: 0.4,
    });
    const revision = await client.revise(original.id, {
      content: 'Globex renews in April',
      importance: 0.7,
    });
    assert.equal(revision.kind, MemoryKind.REVISION);
    assert.equal(revision.entityId, 'globex');
    assert.ok(Math.abs(revision.importance - 0.7) < EPSILON);
    const chain = await client.lineage(revision.id);
    assert.deepEqual(
      chain.map((memory) => memory.id),
      [original.id, revision.id],
    );
    assert.equal((await client.get(original.id)).superseded, true);
    const hidden = await client.recall({ cue: 'When does Globex renew?', entityId: 'globex' });
    assert.deepEqual(
      hidden.results.map((result) => result.memory.id),
      [revision.id],
    );
    const shown = await client.recall({
      cue: 'When does Globex renew?',
      entityId: 'globex',
      includeSuperseded: true,
    });
    assert.equal(shown.results.length, 2);
    const inherited = await client.revise(revision.id, { context: { source: 'email' } });
    assert.equal(inherited.content, 'Globex renews in April');
    assert.deepEqual(inherited.context, { source: 'email' });
  });

  test('revising a superseded memory is a ConflictError naming id, and writes nothing', async () => {
    const original = await client.remember({ content: 'Hooli pays in euros', entityId: 'hooli' });
    const revision = await client.revise(original.id, { content: 'Hooli pays in dollars' });
    await assert.rejects(client.revise(original.id, { content: 'Hooli pays in yen' }), (error) => {
      assert.ok(error instanceof ConflictError, `expected a ConflictError, got ${String(error)}`);
      assert.equal(error.status, 409);
      assert.equal(error.code, 'conflict');
      assert.equal(error.field, 'id');
      assert.equal(error.wireField, 'id');
      assert.ok(error.reason.includes(revision.id.toString('hex')), error.reason);
      assert.equal(error.message, `conflict on id: ${error.reason}`);
      return true;
    });
    const chain = await client.lineage(original.id);
    assert.deepEqual(
      chain.map((memory) => memory.content),
      ['Hooli pays in euros', 'Hooli pays in dollars'],
    );
  });

  test('revise and lineage of an unknown id are NotFoundErrors', async () => {
    await assert.rejects(client.revise(Buffer.alloc(16, 3), { content: 'x' }), NotFoundError);
    await assert.rejects(client.lineage(Buffer.alloc(16, 3)), NotFoundError);
  });

  test('forget by ids leaves a tombstone with the content hash', async () => {
    const content = 'Initech password hint: the stapler';
    const secret = await client.remember({ content, entityId: 'initech' });
    const result = await client.forget({ ids: [secret.id] });
    assert.deepEqual(result, {
      forgottenCount: 1,
      cascadeCount: result.cascadeCount,
      tombstoneCount: 1,
      truncated: false,
    });
    await assert.rejects(client.get(secret.id), NotFoundError);
    const tombstone = await client.tombstone(secret.id);
    assert.ok(tombstone !== undefined);
    assert.deepEqual(tombstone.id, secret.id);
    assert.equal(tombstone.entityId, 'initech');
    assert.equal(tombstone.kind, MemoryKind.EPISODE);
    assert.equal(tombstone.contentSha256, createHash('sha256').update(content).digest('hex'));
    assert.ok(tombstone.forgottenAt >= tombstone.createdAt);
    const page = await client.tombstones({ limit: 1000 });
    assert.ok(page.some((each) => each.id.equals(secret.id)));
    assert.equal(await client.tombstone(Buffer.alloc(16, 4)), undefined);
  });

  test('forget by entity and kind, and forgetDecayed by floor', async () => {
    await client.rememberMany([
      { content: 'Umbrella note one', entityId: 'umbrella' },
      { content: 'Umbrella note two', entityId: 'umbrella' },
    ]);
    const byEntity = await client.forget({
      entityId: 'umbrella',
      kind: MemoryKind.EPISODE,
      olderThan: new Date(Date.now() + 60_000),
    });
    assert.equal(byEntity.forgottenCount, 2);
    await client.remember({
      content: 'A trivial aside about lunch',
      importance: 0.01,
      entityId: 'trivia',
    });
    const decayed = await client.forgetDecayed({ floor: 0.05, limit: 10 });
    assert.equal(decayed.forgottenCount, 1);
    assert.equal((await client.listMemories({ entityId: 'trivia' })).memories.length, 0);
  });
});

describe('health and metrics', () => {
  test('health counts the memories of the caller', async () => {
    const health = await client.health();
    assert.equal(health.serving, true);
    assert.match(health.version, /^\d+\.\d+\.\d+/);
    let count = 0;
    for await (const _memory of client.memories({ includeSuperseded: true })) {
      count += 1;
    }
    assert.equal(health.memoryCount, count);
    assert.ok(health.uptimeSeconds >= 0);
  });

  test('live and ready answer without a key', async () => {
    const anonymous = new HebbsClient({ url: server.url });
    assert.equal(await anonymous.live(), true);
    assert.equal(await anonymous.ready(), true);
  });

  test('metrics needs an admin key and is Prometheus text', async () => {
    const admin = await HebbsClient.connect({
      url: `${server.url}/`,
      apiKey: server.keys['admin']!.key,
    });
    const text = await admin.metrics();
    assert.match(text, /^hebbs_http_requests_total\{/m);
  });
});
