/**
 * Subscriptions against a real server: pushes arrive in commit order with rising sequence
 * numbers, the iterator ends on `close()` or `break`, `nextPush` times out without losing a
 * push, and a closed stream is closed on the server too.
 */

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { HebbsClient, type SubscribePush } from '@hebbs/sdk';

import { startServer, type TestServer } from './server.js';

/** Milliseconds a test waits for a push that must come. */
const PUSH_WAIT_MS = 20_000;

let server: TestServer;
let client: HebbsClient;

before(async () => {
  server = await startServer({
    writer: { tenant: 'news', scope: 'write' },
    admin: { tenant: 'news', scope: 'admin' },
  });
  client = new HebbsClient({ url: server.url, apiKey: server.keys['writer']!.key });
});

after(async () => {
  client?.close();
  await server?.stop();
});

test('pushes arrive in order, each with the subscription id and a rising sequence', async () => {
  const subscription = await client.subscribe({
    cue: 'rain and storms in the weather forecast',
    confidenceThreshold: 0.2,
  });
  assert.equal(typeof subscription.id, 'number');
  const contents = [
    'Heavy rain is forecast for Tuesday',
    'A storm warning was issued for the coast',
    'The forecast says thunderstorms tonight',
    'Rain showers will continue through the weekend',
  ];
  const stored = [];
  for (const content of contents) {
    stored.push(await client.remember({ content, entityId: 'weather' }));
  }
  await client.remember({
    content: 'Quarterly revenue grew by eight percent',
    entityId: 'finance',
  });
  const pushes: SubscribePush[] = [];
  for await (const push of subscription) {
    pushes.push(push);
    if (pushes.length === contents.length) {
      break;
    }
  }
  assert.equal(subscription.closed, true);
  assert.deepEqual(
    pushes.map((push) => push.memory.id),
    stored.map((memory) => memory.id),
  );
  assert.deepEqual(
    pushes.map((push) => push.memory.content),
    contents,
  );
  for (const [index, push] of pushes.entries()) {
    assert.equal(push.subscriptionId, subscription.id);
    assert.ok(push.confidence >= 0.2 && push.confidence <= 1);
    assert.ok(Math.abs(push.pushTimestampUs / 1000 - Date.now()) < 60_000);
    if (index > 0) {
      assert.ok(push.sequenceNumber > pushes[index - 1]!.sequenceNumber);
      assert.ok(push.pushTimestampUs >= pushes[index - 1]!.pushTimestampUs);
    }
  }
  assert.equal(subscription.dropped, 0);
});

test('entityId scopes a subscription; nextPush times out without losing the push', async () => {
  const subscription = await client.subscribe({
    cue: 'sports results',
    entityId: 'sports',
    confidenceThreshold: 0.1,
  });
  try {
    assert.equal(await subscription.nextPush(200), undefined);
    await client.remember({ content: 'The home team won the football match', entityId: 'other' });
    const match = await client.remember({
      content: 'The away team lost the football match',
      entityId: 'sports',
    });
    const push = await subscription.nextPush(PUSH_WAIT_MS);
    assert.deepEqual(push?.memory.id, match.id);
    assert.equal(push?.memory.entityId, 'sports');
  } finally {
    subscription.close();
  }
});

test('a pending nextPush that timed out keeps its push for the next call', async () => {
  const subscription = await client.subscribe('gardening tips for roses');
  try {
    assert.equal(await subscription.nextPush(50), undefined);
    const memory = await client.remember('Prune roses in late winter for better blooms');
    const push = await subscription.nextPush(PUSH_WAIT_MS);
    assert.deepEqual(push?.memory.id, memory.id);
  } finally {
    subscription.close();
  }
});

test('close() ends the iteration and aborts the request', async () => {
  const signals: AbortSignal[] = [];
  const watched: typeof fetch = (input, init) => {
    if (init?.signal) {
      signals.push(init.signal);
    }
    return fetch(input, init);
  };
  const watching = new HebbsClient({
    url: server.url,
    apiKey: server.keys['writer']!.key,
    fetch: watched,
  });
  const subscription = await watching.subscribe('astronomy and telescopes');
  assert.equal(signals.length, 1);
  assert.equal(signals[0]!.aborted, false);
  const waiting = subscription.next();
  subscription.close();
  subscription.close();
  assert.equal(signals[0]!.aborted, true);
  assert.deepEqual(await waiting, { done: true, value: undefined });
  assert.deepEqual(await subscription.next(), { done: true, value: undefined });
  assert.equal(await subscription.nextPush(10), undefined);
  // The server goes on serving pushes to the others after the stream went away.
  const other = await client.subscribe('astronomy and telescopes');
  try {
    const memory = await client.remember('A new telescope saw distant galaxies');
    assert.deepEqual((await other.nextPush(PUSH_WAIT_MS))?.memory.id, memory.id);
  } finally {
    other.close();
  }
});

test('closing the client closes its subscriptions', async () => {
  const other = new HebbsClient({ url: server.url, apiKey: server.keys['writer']!.key });
  const first = await other.subscribe('cooking recipes');
  const second = await other.subscribe({ cue: 'baking bread' });
  assert.notEqual(first.id, second.id);
  other.close();
  assert.equal(first.closed, true);
  assert.equal(second.closed, true);
  assert.deepEqual(await first.next(), { done: true, value: undefined });
});
