/**
 * A real `hebbs serve` on 127.0.0.1 for the tests: a fresh data directory, API keys made with
 * `hebbs keys create`, the server started on a free port (`--port 0`, the port read from its
 * log line) and stopped with SIGTERM. The `hebbs` command is the repository's `.venv/bin/hebbs`
 * (`make build` makes it), or `$HEBBS_BIN`.
 */

import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The package directory (this file runs from build/test/). */
export const PACKAGE_DIR = fileURLToPath(new URL('../../', import.meta.url));
/** The repository root, two levels above the package. */
export const REPO_DIR = join(PACKAGE_DIR, '..', '..');
/** The hebbs command and the Python of the repository's virtual environment. */
export const HEBBS_BIN = process.env['HEBBS_BIN'] ?? join(REPO_DIR, '.venv', 'bin', 'hebbs');
export const PYTHON_BIN = process.env['HEBBS_PYTHON'] ?? join(REPO_DIR, '.venv', 'bin', 'python');

/** Milliseconds the server gets to print its address, and to exit after SIGTERM. */
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 10_000;

export type Scope = 'read' | 'write' | 'admin';

export interface KeySpec {
  readonly tenant: string;
  readonly scope: Scope;
}

export interface MadeKey {
  readonly key: string;
  readonly keyId: string;
}

export interface TestServer {
  readonly url: string;
  readonly dataDir: string;
  /** The key made for each name of `startServer`'s `keys`. */
  readonly keys: Readonly<Record<string, MadeKey>>;
  /** Runs the `hebbs` command with `args` and returns what it printed. */
  hebbs(...args: string[]): Promise<string>;
  stop(): Promise<void>;
}

/** A server over a new data directory with one key per entry of `keys`. */
export async function startServer(keys: Readonly<Record<string, KeySpec>>): Promise<TestServer> {
  const dataDir = await mkdtemp(join(tmpdir(), 'hebbs-sdk-'));
  const hebbs = async (...args: string[]): Promise<string> => {
    const { stdout } = await run(HEBBS_BIN, args, { env: quietEnv() });
    return stdout;
  };
  const made: Record<string, MadeKey> = {};
  for (const [name, spec] of Object.entries(keys)) {
    const out = await hebbs(
      'keys',
      'create',
      '--db',
      dataDir,
      '--tenant',
      spec.tenant,
      '--scope',
      spec.scope,
      '--json',
    );
    const parsed = JSON.parse(out) as { key: string; key_id: string };
    made[name] = { key: parsed.key, keyId: parsed.key_id };
  }
  const child = spawn(HEBBS_BIN, ['serve', '--db', dataDir, '--host', '127.0.0.1', '--port', '0'], {
    env: quietEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let url: string;
  try {
    url = await address(child);
  } catch (error) {
    child.kill('SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
  return {
    url,
    dataDir,
    keys: made,
    hebbs,
    async stop() {
      await stop(child);
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

function quietEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env['HEBBS_URL'];
  delete env['HEBBS_API_KEY'];
  delete env['HEBBS_DB'];
  return env;
}

/** The URL the server's log line names (`Uvicorn running on http://127.0.0.1:PORT`). */
function address(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let log = '';
    const timer = setTimeout(
      () => fail(new Error(`hebbs serve did not start:\n${log}`)),
      START_TIMEOUT_MS,
    );
    const onData = (chunk: Buffer): void => {
      log += chunk.toString();
      const match = /Uvicorn running on (http:\/\/127\.0\.0\.1:\d+)/.exec(log);
      if (match?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    const fail = (error: Error): void => {
      clearTimeout(timer);
      reject(error);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('error', fail);
    child.once('exit', (code) => fail(new Error(`hebbs serve exited with ${code}:\n${log}`)));
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return;
  }
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}
