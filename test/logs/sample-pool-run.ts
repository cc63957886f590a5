/**
 * Run by test/logs/sample-pool.test.ts under `node --import tsx` (worker threads need the
 * loader): ingests the roots in argv with the worker pool and in-thread, prints both as JSON.
 */
import { nodeVfs } from '../../generator/core/kernel/node-vfs.js';
import { startSamplePool } from '../../generator/cli/ingest/sample-pool.js';
import { ingestLogs } from '../../generator/core/logs/index.js';

const roots = process.argv.slice(2);
const pool = startSamplePool(2);
if (!pool) throw new Error('no worker pool under this runtime');
let onWorkers = 0;
const pooled = await ingestLogs(nodeVfs, roots, { readSamples: (file, options) => pool.read(file, options).then((r) => (onWorkers++, r)) });
await pool.close();
const inThread = await ingestLogs(nodeVfs, roots);
console.log(JSON.stringify({ onWorkers, pooled, inThread }));
