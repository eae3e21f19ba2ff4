/**
 * Reflection through the SDK against a real `hebbs serve` with its default offline provider:
 * `reflect()` consolidates episodes into insights, `insights()` lists them with their sources,
 * `reflectPrepare()` / `reflectCommit()` let the caller's own model write them, and bad input
 * comes back naming the field with nothing stored. Each part has its own tenant (own store).
 */

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import {
  EdgeType,
  ForbiddenError,
  HebbsClient,
  type Insight,
  InvalidInputError,
  type Memory,
  MemoryKind,
} from '@hebbs/sdk';

import { rejectsNaming } from './expect.js';
import { startServer, type TestServer } from './server.js';

/** Two topics of four episodes each (the Python reflection tests' `TOPICS`). */
const DEPLOY = [
  'The Friday deploy of the billing service failed and was rolled back.',
  'Deploy pipeline broke again on Friday; the billing rollback took an hour.',
  'Friday deploys keep failing and the billing service needs a rollback.',
  'Another deploy failure late on Friday; the billing rollback worked.',
];
const COFFEE = [
  'Alice prefers oat milk in her coffee.',
  'Alice asked for an oat milk latte again.',
  'Ordered oat milk coffee for Alice at the standup.',
  'Alice said oat milk coffee is the only coffee she drinks.',
];

let server: TestServer;
let offline: HebbsClient;
let reader: HebbsClient;
let agent: HebbsClient;
let checked: HebbsClient;

before(async () => {
  server = await startServer({
    offline: { tenant: 'offline', scope: 'write' },
    reader: { tenant: 'offline', scope: 'read' },
    agent: { tenant: 'agent', scope: 'write' },
    checked: { tenant: 'checked', scope: 'write' },
  });
  const client = (name: string): HebbsClient =>
    new HebbsClient({ url: server.url, apiKey: server.keys[name]!.key });
  offline = client('offline');
  reader = client('reader');
  agent = client('agent');
  checked = client('checked');
});

after(async () => {
  for (const client of [offline, reader, agent, checked]) {
    client?.close();
  }
  await server?.stop();
});

function hexes(ids: readonly Buffer[]): string[] {
  return ids.map((id) => id.toString('hex')).sort();
}

let deploy: Memory[];
let coffee: Memory[];

test('reflect() with the offline provider stores one insight per topic, with its sources', async () => {
  deploy = await offline.rememberMany(DEPLOY);
  coffee = await offline.rememberMany(COFFEE);
  await assert.rejects(reader.reflect(), ForbiddenError, 'a read key cannot reflect');
  assert.deepEqual(await offline.reflect(), {
    insightsCreated: 2,
    clustersFound: 2,
    clustersProcessed: 2,
    memoriesProcessed: 8,
  });

  const insights = await reader.insights();
  assert.equal(insights.length, 2);
  const milk = insights.find((insight) => insight.memory.content.includes('milk'));
  const rollback = insights.find((insight) => insight.memory.content.includes('rollback'));
  assert.ok(milk !== undefined && rollback !== undefined, JSON.stringify(insights));
  assert.deepEqual(hexes(milk.sourceIds), hexes(coffee.map((memory) => memory.id)));
  assert.deepEqual(hexes(rollback.sourceIds), hexes(deploy.map((memory) => memory.id)));
  for (const insight of insights) {
    assert.ok(insight.sourceIds.every((id) => Buffer.isBuffer(id) && id.length === 16));
    assert.equal(insight.memory.kind, MemoryKind.INSIGHT);
    assert.ok(Buffer.isBuffer(insight.memory.id));
    assert.ok(insight.confidence > 0 && insight.confidence <= 1, String(insight.confidence));
    assert.equal(insight.stale, false);
    const stored = await reader.get(insight.memory.id);
    assert.equal(stored.content, insight.memory.content);
  }

  const found = await reader.recall({ cue: milk.memory.content, topK: 1, graphContext: 8 });
  assert.deepEqual(found.results[0]?.memory.id, milk.memory.id);
  const edges = found.results[0]?.expansionContext ?? [];
  assert.ok(edges.every((edge) => edge.edgeType === EdgeType.INSIGHT_FROM));
  assert.deepEqual(
    hexes(edges.map((edge) => edge.neighborId)),
    hexes(coffee.map((memory) => memory.id)),
  );

  assert.deepEqual(await offline.reflect(), {
    insightsCreated: 0,
    clustersFound: 0,
    clustersProcessed: 0,
    memoriesProcessed: 0,
  });
  assert.deepEqual(await reader.insights({ minConfidence: 1 }), []);
  assert.deepEqual(await reader.insights({ entityId: 'nobody' }), []);
  assert.equal((await reader.health()).memoryCount, 10);
});

test('revising a source makes its insight stale: listed only with includeStale', async () => {
  const before: Insight[] = await offline.insights();
  const rollback = before.find((insight) => insight.memory.content.includes('rollback'))!;
  await offline.revise(deploy[0]!.id, { content: 'The Friday deploy succeeded after all.' });
  const fresh = await offline.insights();
  assert.equal(fresh.length, 1);
  assert.ok(fresh[0]!.memory.content.includes('milk'));
  const all = await offline.insights({ includeStale: true });
  assert.deepEqual(
    all.filter((insight) => insight.stale).map((insight) => insight.memory.id),
    [rollback.memory.id],
  );
});

test("reflectPrepare() and reflectCommit() store the caller's insights", async () => {
  const stored = await agent.rememberMany([...DEPLOY, ...COFFEE]);
  const session = await agent.reflectPrepare({ ttl: 600 });
  assert.equal(session.memoriesProcessed, 8);
  assert.equal(session.entityId, undefined);
  assert.equal(session.clusters.length, 2);
  assert.ok(session.sessionId.length > 0);
  assert.ok(session.expiresAt > Date.now() * 1000, String(session.expiresAt));
  assert.deepEqual(
    session.clusters
      .flatMap((cluster) => hexes(cluster.memories.map((memory) => memory.id)))
      .sort(),
    hexes(stored.map((memory) => memory.id)),
  );
  const cluster = session.clusters[0]!;
  assert.ok(cluster.system.length > 0);
  for (const memory of cluster.memories) {
    assert.ok(cluster.prompt.includes(memory.id.toString('hex')), 'the prompt cites its ids');
  }
  const ids = cluster.memories.map((memory) => memory.id);

  const outside = 'ab'.repeat(16);
  await rejectsNaming(
    agent.reflectCommit(session.sessionId, [
      { content: 'fine', sources: [ids[0]!] },
      { content: 'a source outside the session', sources: [outside] },
    ]),
    'insights[1].sources[0]',
    'insights[1].sources[0]',
  );
  assert.deepEqual(await agent.insights(), [], 'nothing half-written');

  const done = await agent.reflectCommit(session.sessionId, [
    { content: "The host's own insight", sources: ids, confidence: 0.7 },
  ]);
  assert.equal(done.insightsCreated, 1);
  assert.equal(done.insights[0]?.content, "The host's own insight");
  assert.equal(done.insights[0]?.kind, MemoryKind.INSIGHT);
  const [insight, ...rest] = await agent.insights();
  assert.deepEqual(rest, []);
  assert.deepEqual(insight?.memory.id, done.insights[0]?.id);
  assert.ok(Math.abs(insight!.confidence - 0.7) < 1e-6, String(insight?.confidence));
  assert.deepEqual(hexes(insight!.sourceIds), hexes(ids));
  assert.equal((await agent.reflect()).memoriesProcessed, 0, 'the commit moved the cursor');
  await rejectsNaming(agent.reflectCommit(session.sessionId, []), 'sessionId', 'session_id');
});

test('bad reflection input names the field and stores nothing', async () => {
  await checked.rememberMany(COFFEE);
  await rejectsNaming(checked.reflect({ minConfidence: 2 }), 'minConfidence', 'min_confidence');
  await rejectsNaming(checked.insights({ minConfidence: 2 }), 'minConfidence', 'min_confidence');
  await rejectsNaming(
    checked.reflectPrepare({ minClusterSize: 0 }),
    'minClusterSize',
    'min_cluster_size',
  );
  await rejectsNaming(
    checked.reflectCommit('no-such-session', [{ content: 'x', sources: [], confidence: 2 }]),
    'insights[0].confidence',
    'insights[0].confidence',
  );
  await assert.rejects(
    checked.reflect({ since: new Date(Number.NaN) }),
    (error: unknown) => error instanceof InvalidInputError && error.field === 'since',
  );
  await assert.rejects(
    checked.reflectCommit('s', 'x' as unknown as []),
    (error: unknown) => error instanceof InvalidInputError && error.field === 'insights',
  );
  assert.deepEqual(await checked.insights(), []);
  assert.equal((await checked.health()).memoryCount, 4);
  assert.equal((await checked.reflect()).memoriesProcessed, 4, 'the failed calls moved nothing');
});
