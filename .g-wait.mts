import normalize from './generator/cli/commands/normalize.js';
import { nodeVfs } from './generator/core/kernel/node-vfs.js';
import type { Vfs } from './generator/core/kernel/vfs.js';
const waits: Record<string, number> = {};
const add = (k: string, t: number) => (waits[k] = (waits[k] ?? 0) + performance.now() - t);
const vfs: Vfs = {
  ...nodeVfs,
  async stat(p) { const t = performance.now(); try { return await nodeVfs.stat(p); } finally { add('stat', t); } },
  async list(p) { const t = performance.now(); try { return await nodeVfs.list(p); } finally { add('list', t); } },
  async readBytes(p) { const t = performance.now(); try { return await nodeVfs.readBytes(p); } finally { add('readBytes', t); } },
  async *readChunks(p, n) { const it = nodeVfs.readChunks(p, n)[Symbol.asyncIterator](); for (;;) { const t = performance.now(); const r = await it.next(); add('readChunks', t); if (r.done) return; yield r.value; } },
  async openAtomicWriter(p, o) { const w = await nodeVfs.openAtomicWriter(p, o); return { path: w.path, abort: w.abort, async write(c) { const t = performance.now(); await w.write(c); add('write', t); }, async commit() { const t = performance.now(); await w.commit(); add('commit', t); } }; },
};
const t0 = performance.now();
await normalize.run(['/tmp/g/corpus'], { out: '/tmp/g/wait-out.jsonl', force: true }, { vfs, cwd: '/tmp', json: false, progress: () => {} });
console.log('total', (performance.now() - t0).toFixed(0), Object.fromEntries(Object.entries(waits).map(([k, v]) => [k, Math.round(v)])));
