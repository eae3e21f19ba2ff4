// Compiles src/ into the directory named on the command line (emptied first), with the
// TypeScript compiler of the lockfile: the same sources give the same files byte for byte.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';

const out = process.argv[2];
if (!out) {
  throw new Error('usage: node scripts/build.mjs OUT_DIR');
}
rmSync(out, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', 'tsconfig.json', '--outDir', out], { stdio: 'inherit' });
