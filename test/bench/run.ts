/**
 * `npm run bench [name…]`: runs each test/bench/<name>.bench.ts in its own process (so peak
 * memory is per benchmark) and prints the summary lines each one reports.
 * Benchmarks compare against a reference measured in the same invocation; they never assert.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const wanted = process.argv.slice(2);
const benches = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .map((f) => f.replace(/\.bench\.ts$/, ''))
  .filter((name) => wanted.length === 0 || wanted.includes(name))
  .sort();

let failed = 0;
for (const name of benches) {
  console.log(`\n=== bench: ${name} ===`);
  const res = spawnSync(process.execPath, ['--import', 'tsx', '--expose-gc', path.join(here, `${name}.bench.ts`)], {
    stdio: 'inherit',
    env: process.env,
  });
  if (res.status !== 0) {
    failed++;
    console.log(`bench ${name} exited with ${res.status}`);
  }
}
process.exitCode = failed ? 1 : 0;
