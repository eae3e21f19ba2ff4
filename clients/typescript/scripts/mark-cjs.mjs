// Marks dist/cjs as CommonJS: the package is "type": "module", so without this package.json
// Node would load the CommonJS build's .js files as ES modules.
import { writeFileSync } from 'node:fs';

writeFileSync(
  new URL('../dist/cjs/package.json', import.meta.url),
  `${JSON.stringify({ type: 'commonjs' }, null, 2)}\n`,
);
