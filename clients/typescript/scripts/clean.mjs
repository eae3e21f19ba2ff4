// Removes the build output directories named on the command line (dist, build) before a build,
// so a file deleted from src/ or test/ never survives in the output.
import { rmSync } from 'node:fs';

for (const dir of process.argv.slice(2)) {
  rmSync(new URL(`../${dir}`, import.meta.url), { recursive: true, force: true });
}
