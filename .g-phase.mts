import { streamTrajectories } from './generator/core/trajectories/read.js';
import { nodeVfs } from './generator/core/kernel/node-vfs.js';
import { trajectoryJson } from './generator/core/trajectories/canonical-json.js';
import { readBoundedLines } from './generator/core/trajectories/lines.js';
const mode = process.argv[2];
const t0 = performance.now();
let n = 0;
if (mode === 'lines') {
  for (const f of ['chat', 'deep-research', 'openhands-output']) for await (const ev of readBoundedLines(nodeVfs, `/tmp/g/corpus/${f}.jsonl`, 1 << 26)) n++;
} else if (mode === 'parse') {
  for (const f of ['chat', 'deep-research', 'openhands-output']) for await (const ev of readBoundedLines(nodeVfs, `/tmp/g/corpus/${f}.jsonl`, 1 << 26)) if (ev.kind === 'line') { JSON.parse(ev.text); n++; }
} else {
  for await (const ev of streamTrajectories(nodeVfs, ['/tmp/g/corpus'])) if (ev.kind === 'trajectory') { n++; if (mode === 'json') trajectoryJson(ev.trajectory); }
}
console.log(mode, n, (performance.now() - t0).toFixed(0), 'ms');
