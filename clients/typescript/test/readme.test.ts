/**
 * The README's examples work as written: every ```ts block is type-checked under `strict`
 * against the built package and run against a real server, each after the quick start (the
 * first block), as the README says; every ```js block runs alone as CommonJS.
 */

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';

import ts from 'typescript';

import { PACKAGE_DIR, startServer, type TestServer } from './server.js';

const run = promisify(execFile);

/** Where the examples are written: inside the package, so `@hebbs/sdk` resolves to it. */
const EXAMPLES_DIR = join(PACKAGE_DIR, 'build', 'readme');
/** Milliseconds one example may run. */
const EXAMPLE_TIMEOUT_MS = 60_000;

interface Block {
  readonly language: 'ts' | 'js';
  readonly code: string;
}

let server: TestServer;
let blocks: Block[];

before(async () => {
  const readme = await readFile(join(PACKAGE_DIR, 'README.md'), 'utf8');
  blocks = [...readme.matchAll(/^```(ts|js)\n([\s\S]*?)^```$/gm)].map((match) => ({
    language: match[1] as 'ts' | 'js',
    code: match[2]!,
  }));
  server = await startServer({ writer: { tenant: 'readme', scope: 'write' } });
  await rm(EXAMPLES_DIR, { recursive: true, force: true });
  await mkdir(EXAMPLES_DIR, { recursive: true });
});

after(async () => {
  await server?.stop();
});

/** The TypeScript examples as modules: the quick start alone, then each block after it. */
function modules(): string[] {
  const typed = blocks.filter((block) => block.language === 'ts').map((block) => block.code);
  const [quickStart, ...rest] = typed;
  assert.ok(quickStart !== undefined);
  return [quickStart, ...rest.map((code) => `${quickStart}\n${code}`)];
}

async function runExample(file: string): Promise<string> {
  const { stdout, stderr } = await run(process.execPath, [file], {
    env: { ...process.env, HEBBS_URL: server.url, HEBBS_API_KEY: server.keys['writer']!.key },
    timeout: EXAMPLE_TIMEOUT_MS,
  });
  // Node 18 warns that fetch is experimental; anything else on stderr is a failure.
  const problems = stderr
    .split('\n')
    .filter((line) => line.trim() !== '' && !/ExperimentalWarning|--trace-warnings/.test(line));
  assert.deepEqual(problems, []);
  return stdout;
}

test('the README has the quick start, seed 000 and seed 003 examples', () => {
  const all = blocks.map((block) => block.code).join('\n');
  assert.ok(blocks.filter((block) => block.language === 'ts').length >= 8);
  assert.ok(
    all.includes(
      'scoringWeights: { wRelevance: 1.0, wRecency: 0.0, wImportance: 0.0, wReinforcement: 0.0 },',
    ),
  );
  assert.ok(
    all.includes(
      'scoringWeights: { wRelevance: 0.3, wRecency: 0.5, wImportance: 0.1, wReinforcement: 0.1 },',
    ),
  );
  assert.ok(all.includes('edgeType: EdgeType.FOLLOWED_BY,'));
});

test('every TypeScript example type-checks under strict', async () => {
  const files = [];
  for (const [index, source] of modules().entries()) {
    const file = join(EXAMPLES_DIR, `example-${index}.ts`);
    await writeFile(file, source);
    files.push(file);
  }
  const program = ts.createProgram(files, {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: ['node'],
    typeRoots: [join(PACKAGE_DIR, 'node_modules', '@types')],
  });
  const problems = ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const where = diagnostic.file?.fileName ?? '';
    return `${where}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
  });
  assert.deepEqual(problems, []);
});

test('every TypeScript example runs against the server', async () => {
  for (const [index, source] of modules().entries()) {
    const js = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    }).outputText;
    const file = join(EXAMPLES_DIR, `example-${index}.mjs`);
    await writeFile(file, js);
    const printed = await runExample(file);
    assert.notEqual(printed.trim(), '', `example ${index} printed nothing`);
  }
});

test('the CommonJS example runs', async () => {
  const commonjs = blocks.filter((block) => block.language === 'js');
  assert.equal(commonjs.length, 1);
  const file = join(EXAMPLES_DIR, 'example.cjs');
  await writeFile(file, commonjs[0]!.code);
  assert.match(await runExample(file), /^true \d+ episode$/m);
});
