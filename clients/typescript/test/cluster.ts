/**
 * A real `hebbs cluster serve` on 127.0.0.1 for the routing tests: its own Ray on this machine,
 * two shards (`a`, `b`) and one ingress replica, keys made with `hebbs keys create` in its data
 * directory before it starts, stopped with SIGINT. It waits for the line that names the
 * cluster's URL, which `hebbs cluster serve` prints once every shard answers.
 */

import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { HEBBS_BIN } from './server.js';

const run = promisify(execFile);

/** Milliseconds the cluster gets to start its Ray and deploy, and to stop. */
const START_TIMEOUT_MS = 300_000;
const STOP_TIMEOUT_MS = 120_000;

export interface TestCluster {
  readonly url: string;
  /** The key made for each tenant of `startCluster`'s `tenants`. */
  readonly keys: Readonly<Record<string, string>>;
  stop(): Promise<void>;
}

/** A free port on 127.0.0.1 (the cluster's proxy binds it). */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (address === null || typeof address === 'string') {
          reject(new Error('no port'));
        } else {
          resolve(address.port);
        }
      });
    });
  });
}

/** A cluster of two shards with one write key per tenant of `tenants`. */
export async function startCluster(tenants: readonly string[]): Promise<TestCluster> {
  const dir = await mkdtemp(join(tmpdir(), 'hebbs-sdk-cluster-'));
  const dataDir = join(dir, 'data');
  const port = await freePort();
  const config = join(dir, 'cluster.toml');
  await writeFile(
    config,
    `data_dir = "${dataDir}"\nport = ${port}\nshards = ["a", "b"]\ningress_replicas = 1\n` +
      '[ray]\nnum_cpus = 1\n[shard_env]\nHEBBS_LLM_PROVIDER = "offline"\n',
  );
  const keys: Record<string, string> = {};
  for (const tenant of tenants) {
    const { stdout } = await run(HEBBS_BIN, [
      'keys',
      'create',
      '--db',
      dataDir,
      '--tenant',
      tenant,
      '--scope',
      'write',
      '--json',
    ]);
    keys[tenant] = (JSON.parse(stdout) as { key: string }).key;
  }
  const child = spawn(HEBBS_BIN, ['cluster', 'serve', '--config', config], {
    env: { ...process.env, PYTHONUNBUFFERED: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let url: string;
  try {
    url = await serving(child);
  } catch (error) {
    child.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    url,
    keys,
    async stop() {
      await stop(child);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** The URL of the line `hebbs cluster serving at http://127.0.0.1:PORT`. */
function serving(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    let log = '';
    const timer = setTimeout(
      () => fail(new Error(`hebbs cluster serve did not start:\n${log}`)),
      START_TIMEOUT_MS,
    );
    const fail = (error: Error): void => {
      clearTimeout(timer);
      reject(error);
    };
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /hebbs cluster serving at (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (match?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      log = (log + chunk.toString()).slice(-20_000);
    });
    child.once('error', fail);
    child.once('exit', (code) =>
      fail(new Error(`hebbs cluster serve exited with ${code}:\n${log}`)),
    );
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return;
  }
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGINT');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}
