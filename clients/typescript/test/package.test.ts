/**
 * The package as shipped: the ES module and CommonJS builds export the same API with type
 * declarations, and what it copies from the engine (defaults, strategy, edge type and kind
 * names, the wire names of every request and answer field) equals what the Python package of
 * the same repository says.
 */

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { promisify } from 'node:util';

import * as sdk from '@hebbs/sdk';
import ts from 'typescript';

import { fromWireName, toWireName } from '../src/names.js';
import { PACKAGE_DIR, PYTHON_BIN } from './server.js';

const run = promisify(execFile);

/** What the Python package says, dumped as JSON by its own interpreter. */
const DUMP = `
import json
import hebbs._native as native
import hebbs.reflect.constants as reflect_constants
from hebbs.api import recall, requests, responses
from hebbs.api import fields as field_types
from hebbs.api.fields import EDGE_TYPE_NAMES, MEMORY_KIND_NAMES

def fields(module):
    found = set()
    for value in vars(module).values():
        if isinstance(value, type) and hasattr(value, "model_fields"):
            found.update(value.model_fields)
    return sorted(found)

print(json.dumps({
    "constants": {
        k: getattr(module, k)
        for module in (native, reflect_constants)
        for k in dir(module)
        if k.isupper()
    },
    "default_strategies": list(recall.DEFAULT_STRATEGIES),
    "edge_types": list(EDGE_TYPE_NAMES),
    "kinds": list(MEMORY_KIND_NAMES),
    "weights": sorted(recall.WeightsInput.model_fields),
    "fields": sorted(set(fields(requests)) | set(fields(recall)) | set(fields(responses))),
    "models": {
        name: sorted(model.model_fields)
        for module in (requests, recall, responses, field_types)
        for name, model in vars(module).items()
        if isinstance(model, type) and hasattr(model, "model_fields")
    },
    "defaults": {
        name: {
            field: info.default
            for field, info in model.model_fields.items()
            if isinstance(info.default, (int, float, str)) and not isinstance(info.default, bool)
        }
        for module in (requests, recall)
        for name, model in vars(module).items()
        if isinstance(model, type) and hasattr(model, "model_fields")
    },
}))
`;

interface Dump {
  readonly constants: Record<string, unknown>;
  readonly default_strategies: string[];
  readonly edge_types: string[];
  readonly kinds: string[];
  readonly weights: string[];
  readonly fields: string[];
  readonly models: Record<string, string[]>;
  readonly defaults: Record<string, Record<string, number | string>>;
}

/** Each TypeScript interface and the pydantic model of the same wire object: its request
 * model (`hebbs.api.requests`, `hebbs.api.fields`) or its answer (`hebbs.api.responses`), and
 * the wire fields the interface leaves out on purpose. */
const COUNTERPARTS: readonly [string, string, readonly string[]][] = [
  ['RememberOptions', 'RememberRequest', []],
  ['RecallOptions', 'RecallRequest', []],
  ['PrimeOptions', 'PrimeRequest', []],
  ['ReviseOptions', 'ReviseChanges', []],
  ['ForgetOptions', 'ForgetRequest', []],
  ['ForgetDecayedOptions', 'ForgetDecayedRequest', []],
  ['ListMemoriesOptions', 'ListMemoriesRequest', []],
  ['CountMemoriesOptions', 'CountMemoriesRequest', []],
  ['TombstonesOptions', 'TombstonesRequest', []],
  ['SubscribeOptions', 'SubscribeRequest', []],
  ['GetOptions', 'GetRequest', ['id']],
  ['LimitOptions', 'OrphansRequest', []],
  ['ScoringWeights', 'WeightsInput', []],
  ['RecallStrategyInput', '_StrategyForm', []],
  ['RecallStrategyConfig', '_StrategyForm', []],
  ['EdgeInput', '_EdgeForm', []],
  ['Memory', 'MemoryOut', ['id_hex']],
  ['StrategyDetail', 'StrategyDetailOut', []],
  ['ExpansionEdge', 'ExpansionEdgeOut', []],
  ['RecallResult', 'RecallResultOut', []],
  ['StrategyError', 'StrategyErrorOut', []],
  ['RecallOutput', 'RecallOutputOut', []],
  ['PrimeOutput', 'PrimeOutputOut', []],
  ['ForgetResult', 'ForgetResultOut', []],
  ['Tombstone', 'TombstoneOut', ['id_hex']],
  ['HealthStatus', 'HealthStatusOut', []],
  ['MemoryPage', 'MemoryPageOut', []],
  ['SubscribePush', 'SubscribePushOut', []],
  ['ReflectOptions', 'ReflectRequest', []],
  ['InsightsOptions', 'InsightsRequest', []],
  ['ReflectPrepareOptions', 'ReflectPrepareRequest', []],
  ['CommitInsightInput', 'CommitInsight', []],
  ['ReflectResult', 'ReflectResultOut', []],
  ['Insight', 'InsightOut', []],
  ['PreparedCluster', 'PreparedClusterOut', []],
  ['ReflectSession', 'ReflectSessionOut', []],
  ['CommitResult', 'CommitResultOut', []],
];

/** What the doc comment of an option says its default is: `default \`NAME\` (value)`,
 * `default value` or `default: value` (a quoted string or a number). */
const DOCUMENTED_DEFAULT = /default:?\s+(?:`[A-Z_]+`\s+)?\(?(?:`?'([^']*)'`?|(-?[0-9][0-9_.]*))/i;

/** The members of each exported interface of the package's sources, inherited ones
 * included, each with its doc comment, read by the TypeScript compiler. */
function interfaceDocs(): Map<string, Map<string, string>> {
  const index = join(PACKAGE_DIR, 'src', 'index.ts');
  const program = ts.createProgram([index], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: [],
  });
  const checker = program.getTypeChecker();
  const entry = checker.getSymbolAtLocation(program.getSourceFile(index)!)!;
  const docs = new Map<string, Map<string, string>>();
  for (const exported of checker.getExportsOfModule(entry)) {
    const symbol =
      exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
    if (symbol.flags & ts.SymbolFlags.Interface) {
      const type = checker.getDeclaredTypeOfSymbol(symbol);
      const members = new Map<string, string>();
      for (const property of checker.getPropertiesOfType(type)) {
        members.set(
          property.name,
          ts.displayPartsToString(property.getDocumentationComment(checker)),
        );
      }
      docs.set(exported.name, members);
    }
  }
  return docs;
}

/** The property names of each exported interface of the package's sources. */
function interfaceMembers(): Map<string, string[]> {
  return new Map([...interfaceDocs()].map(([name, members]) => [name, [...members.keys()]]));
}

let python: Dump;

before(async () => {
  const { stdout } = await run(PYTHON_BIN, ['-c', DUMP]);
  python = JSON.parse(stdout) as Dump;
});

test('the CommonJS build exports what the ES module build does', () => {
  const require = createRequire(import.meta.url);
  const commonjs = require('@hebbs/sdk') as Record<string, unknown>;
  assert.deepEqual(Object.keys(commonjs).sort(), Object.keys(sdk).sort());
  assert.equal(typeof commonjs['HebbsClient'], 'function');
  assert.deepEqual(commonjs['EdgeType'], sdk.EdgeType);
  assert.ok(require.resolve('@hebbs/sdk').endsWith(join('dist', 'cjs', 'index.js')));
  for (const build of ['esm', 'cjs']) {
    assert.ok(existsSync(join(PACKAGE_DIR, 'dist', build, 'index.d.ts')), build);
  }
});

test("every default and limit equals the engine's constant of the same name", () => {
  const ours = Object.entries(sdk).filter(
    ([name, value]) => /^(DEFAULT|MAX)_/.test(name) && typeof value !== 'object',
  );
  assert.ok(ours.length >= 20);
  for (const [name, value] of ours) {
    if (name === 'DEFAULT_TIMEOUT_MS') {
      continue;
    }
    const theirs = python.constants[name];
    assert.ok(
      theirs !== undefined,
      `${name} is not a constant of hebbs._native or hebbs.reflect.constants`,
    );
    if (typeof value === 'number') {
      // float32 constants (0.3) arrive as their double (0.30000001192092896).
      assert.ok(Math.abs(value - Number(theirs)) < 1e-6, `${name}: ${value} != ${String(theirs)}`);
    } else {
      assert.equal(value, theirs, name);
    }
  }
  assert.deepEqual([...sdk.DEFAULT_STRATEGIES], python.default_strategies);
  assert.equal(sdk.ID_BYTES, 16);
});

test('the enums have the names the server takes', () => {
  assert.deepEqual(Object.values(sdk.RecallStrategy), python.constants['STRATEGIES']);
  const known = (values: string[]): string[] => values.filter((value) => value !== 'unspecified');
  assert.deepEqual(known(Object.values(sdk.EdgeType)), python.edge_types);
  assert.deepEqual(known(Object.values(sdk.MemoryKind)), python.kinds);
});

test('every wire field name survives the trip to a client name and back', () => {
  assert.ok(python.fields.length > 50);
  for (const wire of python.fields) {
    const client = fromWireName(wire);
    assert.match(client, /^[a-z][A-Za-z0-9]*$/, wire);
    assert.equal(toWireName(client), wire, `${wire} -> ${client}`);
  }
  assert.deepEqual(python.weights.map(fromWireName), [
    'maxAgeUs',
    'reinforcementCap',
    'wImportance',
    'wRecency',
    'wReinforcement',
    'wRelevance',
  ]);
});

test('every option and result interface has the fields of its pydantic model', () => {
  const members = interfaceMembers();
  for (const [name, model, leftOut] of COUNTERPARTS) {
    const ours = members.get(name);
    const theirs = python.models[model];
    assert.ok(ours !== undefined, `${name} is not an exported interface`);
    assert.ok(theirs !== undefined, `${model} is not a model of hebbs.api`);
    assert.deepEqual(
      ours.map(toWireName).sort(),
      theirs.filter((field) => !leftOut.includes(field)).sort(),
      `${name} / ${model}`,
    );
  }
});

test("every option with a server default says the model field's default", () => {
  const docs = interfaceDocs();
  let checked = 0;
  for (const [name, model] of COUNTERPARTS) {
    const defaults = python.defaults[model];
    const members = docs.get(name);
    if (defaults === undefined || members === undefined) {
      continue;
    }
    for (const [field, value] of Object.entries(defaults)) {
      const doc = members.get(fromWireName(field));
      if (doc === undefined) {
        continue;
      }
      const said = DOCUMENTED_DEFAULT.exec(doc);
      assert.ok(said !== null, `${name}.${fromWireName(field)} does not say its default ${value}`);
      const shown = said[1] ?? Number(said[2]!.replaceAll('_', ''));
      if (typeof value === 'number') {
        // float32 defaults (0.3) arrive as their double (0.30000001192092896).
        assert.ok(Math.abs(Number(shown) - value) < 1e-6, `${name}.${field}: ${shown} != ${value}`);
      } else {
        assert.equal(shown, value, `${name}.${field}`);
      }
      checked += 1;
    }
  }
  assert.ok(checked >= 15, `only ${checked} defaults checked`);
});
