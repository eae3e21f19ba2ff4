/**
 * Failures against a real server: each as its error class. Missing, unknown and revoked keys,
 * a scope too weak, a tenant reaching for another's memories, bad input answered with the field
 * named in the client's names (and nothing stored), a body too large, a key over its rate, a
 * server that is not there.
 */

import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, describe, test } from 'node:test';

import {
  AuthError,
  ClosedError,
  ForbiddenError,
  HebbsClient,
  HebbsError,
  InvalidInputError,
  type Memory,
  NotFoundError,
  PayloadTooLargeError,
  RateLimitError,
  ServerUnavailableError,
} from '@hebbs/sdk';

import { rejectsNaming } from './expect.js';
import { startServer, type TestServer } from './server.js';

/** A rate-limit test sends at most RATE_ROUNDS rounds of RATE_BATCH concurrent calls. */
const RATE_ROUNDS = 40;
const RATE_BATCH = 50;

let server: TestServer;
let alice: HebbsClient;
let bob: HebbsClient;
let secret: Memory;

before(async () => {
  server = await startServer({
    alice: { tenant: 'alice', scope: 'write' },
    aliceReader: { tenant: 'alice', scope: 'read' },
    bob: { tenant: 'bob', scope: 'write' },
    revoked: { tenant: 'alice', scope: 'write' },
    limited: { tenant: 'carol', scope: 'read' },
  });
  alice = new HebbsClient({ url: server.url, apiKey: server.keys['alice']!.key });
  bob = new HebbsClient({ url: server.url, apiKey: server.keys['bob']!.key });
  secret = await alice.remember({
    content: 'Alice keeps the launch codes in the blue binder',
    entityId: 'launch',
    sessionId: 'alice-session',
  });
  await bob.remember({ content: 'Bob likes green tea', entityId: 'tea' });
});

after(async () => {
  alice?.close();
  bob?.close();
  await server?.stop();
});

async function count(client: HebbsClient): Promise<number> {
  return (await client.health()).memoryCount;
}

describe('auth', () => {
  test('no key is a 401 AuthError', async () => {
    const anonymous = new HebbsClient({ url: server.url });
    await assert.rejects(anonymous.health(), (error: unknown) => {
      assert.ok(error instanceof AuthError);
      assert.equal(error.status, 401);
      assert.equal(error.code, 'unauthorized');
      assert.ok(!(error instanceof ForbiddenError));
      return true;
    });
  });

  test('an unknown key is a 401, and connect() fails at once', async () => {
    const stranger = { url: server.url, apiKey: 'hb_not-a-key-anyone-made' };
    await assert.rejects(
      new HebbsClient(stranger).recall('anything'),
      (error: unknown) => error instanceof AuthError && error.status === 401,
    );
    await assert.rejects(HebbsClient.connect(stranger), AuthError);
  });

  test('a revoked key is a 401', async () => {
    const client = new HebbsClient({ url: server.url, apiKey: server.keys['revoked']!.key });
    assert.equal((await client.health()).serving, true);
    await server.hebbs('keys', 'revoke', '--db', server.dataDir, server.keys['revoked']!.keyId);
    await assert.rejects(
      client.health(),
      (error: unknown) => error instanceof AuthError && error.status === 401,
    );
  });

  test('a read key cannot write: a 403 ForbiddenError, also an AuthError', async () => {
    const reader = new HebbsClient({ url: server.url, apiKey: server.keys['aliceReader']!.key });
    assert.deepEqual((await reader.get(secret.id)).id, secret.id);
    const before = await count(alice);
    await assert.rejects(reader.remember('a reader tries to write'), (error: unknown) => {
      assert.ok(error instanceof ForbiddenError);
      assert.ok(error instanceof AuthError);
      assert.equal(error.status, 403);
      assert.equal(error.code, 'forbidden');
      return true;
    });
    await assert.rejects(reader.forget({ ids: [secret.id] }), ForbiddenError);
    await assert.rejects(reader.metrics(), ForbiddenError);
    assert.equal(await count(alice), before);
  });

  test('a key over its rate is a RateLimitError with retryAfter', async () => {
    const limited = new HebbsClient({ url: server.url, apiKey: server.keys['limited']!.key });
    // Rounds of concurrent calls outrun the refill (100/s) even on a slow machine.
    let refused: RateLimitError | undefined;
    for (let round = 0; round < RATE_ROUNDS && refused === undefined; round += 1) {
      const calls = Array.from({ length: RATE_BATCH }, () => limited.health());
      for (const outcome of await Promise.allSettled(calls)) {
        if (outcome.status === 'rejected') {
          if (!(outcome.reason instanceof RateLimitError)) {
            throw outcome.reason;
          }
          refused = outcome.reason;
        }
      }
    }
    assert.ok(refused !== undefined, 'the server never refused');
    assert.equal(refused.status, 429);
    assert.equal(refused.code, 'rate_limited');
    assert.ok(refused.retryAfter !== undefined && refused.retryAfter > 0);
  });
});

describe('tenants', () => {
  test("another tenant's id is not found, by get, getMany, revise or lineage", async () => {
    await assert.rejects(bob.get(secret.id), NotFoundError);
    assert.deepEqual(await bob.getMany([secret.id]), [undefined]);
    await assert.rejects(bob.revise(secret.id, { content: 'Bob was here' }), NotFoundError);
    await assert.rejects(bob.lineage(secret.id), NotFoundError);
    assert.equal(
      (await alice.get(secret.id)).content,
      'Alice keeps the launch codes in the blue binder',
    );
  });

  test("another tenant can neither recall, list, nor forget alice's memories", async () => {
    const recalled = await bob.recall({ cue: 'launch codes blue binder', topK: 50 });
    assert.ok(!recalled.results.some((result) => result.memory.id.equals(secret.id)));
    const timeline = await bob.recall({ strategies: ['temporal'], entityId: 'launch' });
    assert.deepEqual(timeline.results, []);
    assert.deepEqual((await bob.listMemories({ entityId: 'launch' })).memories, []);
    assert.deepEqual(await bob.getChatContext('alice-session'), []);
    const forgotten = await bob.forget({ ids: [secret.id] });
    assert.equal(forgotten.forgottenCount, 0);
    assert.equal(await bob.tombstone(secret.id), undefined);
    assert.deepEqual((await alice.get(secret.id)).id, secret.id);
  });

  test("an edge to another tenant's memory is refused on edges[0].targetId", async () => {
    const before = await count(bob);
    await rejectsNaming(
      bob.remember({
        content: 'Bob links to a secret',
        edges: [{ targetId: secret.id, edgeType: 'related_to' }],
      }),
      'edges[0].targetId',
      'edges[0].target',
    );
    assert.equal(await count(bob), before);
  });

  test("another tenant's subscription never sees alice's writes", async () => {
    const subscription = await bob.subscribe({ cue: 'launch codes', confidenceThreshold: 0.1 });
    try {
      await alice.remember('The launch codes moved to the red binder');
      await bob.remember('Bob wrote down new launch codes for the tea party');
      const push = await subscription.nextPush(20_000);
      assert.equal(push?.memory.content, 'Bob wrote down new launch codes for the tea party');
    } finally {
      subscription.close();
    }
  });
});

describe('bad input names the field and stores nothing', () => {
  test('a value out of range: topK', async () => {
    await rejectsNaming(alice.recall({ cue: 'x', topK: -1 }), 'topK', 'top_k');
  });

  test('a fault inside a filter is named by its path, keys untouched', async () => {
    await rejectsNaming(
      alice.recall({
        cue: 'x',
        filter: { $and: [{ 'context.a': 1 }, { entity_id: { $gte: null } }] },
      }),
      'filter.$and[1].entity_id.$gte',
      'filter.$and[1].entity_id.$gte',
    );
  });

  test('a wrong type inside scoringWeights', async () => {
    const weights = { wRelevance: 'high' } as unknown as { wRelevance: number };
    await rejectsNaming(
      alice.recall({ cue: 'x', scoringWeights: weights }),
      'scoringWeights.wRelevance',
      'scoring_weights.w_relevance',
    );
  });

  test('a blank item of rememberMany, and nothing of the batch is stored', async () => {
    const before = await count(alice);
    await rejectsNaming(
      alice.rememberMany([{ content: 'a fine note' }, { content: '   ' }]),
      'items[1].content',
      'items[1].content',
    );
    assert.equal(await count(alice), before);
  });

  test('an edge to a memory that does not exist', async () => {
    const before = await count(alice);
    await rejectsNaming(
      alice.remember({
        content: 'dangling',
        edges: [{ targetId: Buffer.alloc(16, 1), edgeType: 'caused_by' }],
      }),
      'edges[0].targetId',
      'edges[0].target',
    );
    assert.equal(await count(alice), before);
  });

  test('an unknown option is named as the caller spelled it', async () => {
    const typo = { content: 'x', entityID: 'acme' } as unknown as { content: string };
    await rejectsNaming(alice.remember(typo), 'entityID', 'entity_i_d');
  });

  test('a strategy config field: causal maxDepth over the cap', async () => {
    await rejectsNaming(
      alice.recall({
        cue: 'x',
        strategies: [{ strategy: 'causal', seedMemoryId: secret.id, maxDepth: 11 }],
      }),
      'strategies[0].maxDepth',
      'strategies[0].max_depth',
    );
  });

  test('checked before sending: a short id, a non-finite number, a bad Date', async () => {
    await rejectsNaming(alice.get(Buffer.alloc(3)), 'id');
    await rejectsNaming(alice.get('not-hex'), 'id');
    await rejectsNaming(alice.remember({ content: 'x', importance: Number.NaN }), 'importance');
    await rejectsNaming(
      alice.recall({ strategies: [{ strategy: 'causal', seedMemoryId: Buffer.alloc(15) }] }),
      'strategies[0].seedMemoryId',
    );
    await rejectsNaming(alice.forget({ olderThan: new Date('not a date') }), 'olderThan');
    await rejectsNaming(alice.forget({ ids: [Buffer.alloc(16), Buffer.alloc(2)] }), 'ids[1]');
  });

  test('a malformed id string in a body is named by the server', async () => {
    await rejectsNaming(alice.getMany([secret.id, 'zz']), 'ids[1]', 'ids[1]');
  });

  test('a subscription without a cue or an embedding', async () => {
    await rejectsNaming(alice.subscribe({ entityId: 'launch' }), 'cue', 'cue');
  });

  test('a body over the size limit is a PayloadTooLargeError on body', async () => {
    await assert.rejects(alice.remember('x'.repeat(9 * 1024 * 1024)), (error: unknown) => {
      assert.ok(error instanceof PayloadTooLargeError);
      assert.ok(error instanceof InvalidInputError);
      assert.equal(error.field, 'body');
      assert.equal(error.status, 413);
      return true;
    });
  });
});

describe('the connection', () => {
  test('a server that is not there is a ServerUnavailableError', async () => {
    const port = await freePort();
    const nobody = new HebbsClient({ url: `http://127.0.0.1:${port}`, apiKey: 'hb_x' });
    await assert.rejects(nobody.health(), (error: unknown) => {
      assert.ok(error instanceof ServerUnavailableError);
      assert.ok(error instanceof HebbsError);
      assert.match(error.message, /unavailable/);
      return true;
    });
  });

  test('a request past timeoutMs is a ServerUnavailableError', async () => {
    const hasty = new HebbsClient({
      url: server.url,
      apiKey: server.keys['alice']!.key,
      timeoutMs: 1,
    });
    await assert.rejects(
      hasty.recall({
        cue: 'a cue the server has to embed first',
        strategies: ['similarity', 'hybrid', 'analogical'],
      }),
      (error: unknown) => {
        assert.ok(error instanceof ServerUnavailableError);
        assert.match(error.message, /no answer within 1 ms/);
        return true;
      },
    );
  });

  test('a closed client throws ClosedError', async () => {
    const client = new HebbsClient({ url: server.url, apiKey: server.keys['alice']!.key });
    client.close();
    assert.equal(client.closed, true);
    await assert.rejects(client.health(), ClosedError);
  });

  test('a bad url or key is refused by the constructor', () => {
    assert.throws(
      () => new HebbsClient({ url: 'ftp://127.0.0.1' }),
      (error: unknown) => error instanceof InvalidInputError && error.field === 'url',
    );
    assert.throws(() => new HebbsClient({ url: 'not a url' }), InvalidInputError);
    assert.throws(
      () => new HebbsClient({ url: server.url, apiKey: '' }),
      (error: unknown) => error instanceof InvalidInputError && error.field === 'apiKey',
    );
  });
});

/** A port nothing listens on (bound, read, released). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === 'object' && address !== null
          ? resolve(address.port)
          : reject(new Error('no port')),
      );
    });
  });
}
