// Fails unless the two directories hold the same files with the same bytes: the committed page
// (python/hebbs/server/ui/js) must be what the sources compile to.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

function files(dir) {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath ?? entry.path, entry.name)))
    .sort();
}

const [fresh, committed] = process.argv.slice(2);
const ours = files(fresh);
const theirs = files(committed);
const problems = [];
for (const name of new Set([...ours, ...theirs])) {
  if (!ours.includes(name)) problems.push(`${name}: committed but not built`);
  else if (!theirs.includes(name)) problems.push(`${name}: built but not committed`);
  else if (!readFileSync(join(fresh, name)).equals(readFileSync(join(committed, name)))) {
    problems.push(`${name}: differs from a fresh build`);
  }
}
if (problems.length > 0) {
  console.error(
    `the committed explorer is not what src/ builds to (npm run build):\n${problems.join('\n')}`,
  );
  process.exit(1);
}
console.log(`${ours.length} files: the committed explorer is what src/ builds to`);
