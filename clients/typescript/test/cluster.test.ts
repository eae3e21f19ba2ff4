/**
 * `HebbsClient` given a real cluster's URL (`hebbs cluster serve`, two shards): after the first
 * answer it fetches the shard map and sends every request to the shard that owns its key's
 * tenant, skipping the ingress; given a shard that does not own the tenant, its first request is
 * forwarded there and the rest go to the owner. A plain server's client never asks for a map
 * (client.test.ts runs every call against one).
 */

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { HebbsClient } from '@hebbs/sdk';

import { startCluster, type TestCluster } from './cluster.js';

const TENANTS = ['acme', 'globex', 'initech', 'umbrella'];

let cluster: TestCluster;

interface ShardMap {
  readonly version: number;
  readonly shards: readonly { readonly name: string; readonly url: string }[];
  readonly tenant: string;
  readonly owner: string;
}

/** The shard map of `tenant`'s key, as the ingress answers it. */
async function shardMap(tenant: string): Promise<ShardMap> {
  const answer = await fetch(`${cluster.url}/v1/cluster/map`, {
    headers: { authorization: `Bearer ${cluster.keys[tenant]!}` },
  });
  assert.equal(answer.status, 200);
  return (await answer.json()) as ShardMap;
}

/** A `fetch` that records the origin of every request. */
function recording(): { fetch: typeof fetch; origins: string[] } {
  const origins: string[] = [];
  const recorder = (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : input);
    origins.push(url.origin);
    return fetch(input, init);
  };
  return { fetch: recorder, origins };
}

before(async () => {
  cluster = await startCluster(TENANTS);
});

after(async () => {
  await cluster?.stop();
});

test('a client given the cluster URL routes to the owning shard', async () => {
  const owners = new Set<string>();
  for (const tenant of TENANTS) {
    const map = await shardMap(tenant);
    assert.equal(map.tenant, tenant);
    const ownerUrl = map.shards.find((shard) => shard.name === map.owner)!.url;
    const { fetch: recorder, origins } = recording();
    const client = new HebbsClient({
      url: cluster.url,
      apiKey: cluster.keys[tenant]!,
      fetch: recorder,
    });
    assert.equal(client.route, undefined);
    await client.health();
    assert.deepEqual(client.route, { version: map.version, owner: map.owner, url: ownerUrl });
    const first = origins.length;
    const memory = await client.remember(`${tenant} asked for a discount`);
    const found = await client.recall({ cue: 'discount', topK: 5 });
    assert.deepEqual(
      found.results.map((result) => result.memory.id),
      [memory.id],
    );
    assert.deepEqual(new Set(origins.slice(first)), new Set([ownerUrl]));
    owners.add(map.owner);
    client.close();
  }
  // The tenants are spread over both shards.
  assert.deepEqual(owners, new Set(['a', 'b']));
});

test('a client given another shard is forwarded once, then routes to the owner', async () => {
  const tenant = TENANTS[0]!;
  const map = await shardMap(tenant);
  const other = map.shards.find((shard) => shard.name !== map.owner)!;
  const ownerUrl = map.shards.find((shard) => shard.name === map.owner)!.url;
  const { fetch: recorder, origins } = recording();
  const client = new HebbsClient({
    url: other.url,
    apiKey: cluster.keys[tenant]!,
    fetch: recorder,
  });
  const health = await client.health();
  assert.equal(health.memoryCount, 1);
  assert.equal(client.route?.owner, map.owner);
  const first = origins.length;
  assert.equal((await client.recall({ cue: 'discount' })).results.length, 1);
  assert.deepEqual(origins.slice(first), [ownerUrl]);
  client.close();
});

test('route: false sends every request to the URL given', async () => {
  const tenant = TENANTS[1]!;
  const { fetch: recorder, origins } = recording();
  const client = new HebbsClient({
    url: cluster.url,
    apiKey: cluster.keys[tenant]!,
    fetch: recorder,
    route: false,
  });
  await client.health();
  assert.equal((await client.recall({ cue: 'discount' })).results.length, 1);
  assert.equal(client.route, undefined);
  assert.deepEqual(new Set(origins), new Set([cluster.url]));
  client.close();
});
