/**
 * Worker-thread entry of the samples-file pool (`sample-pool.ts`): reads each file it is sent
 * with the same reader as the main thread and posts back the block, findings and tally.
 * A worker has nothing else to do while a file loads, so whole files are read synchronously
 * (an async read costs several times the CPU of a sync one for a file of a few hundred KB);
 * files too big to hold are still streamed.
 */
import { readFileSync, statSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { nodeVfs } from '../../core/kernel/node-vfs.js';
import type { Vfs } from '../../core/kernel/vfs.js';
import { inThreadSampleReader, packSampleFileResult } from '../../core/logs/harness/sample-file.js';
import type { SampleReadOptions } from '../../core/logs/harness/samples.js';
import type { Finding } from '../../core/kernel/findings.js';

const syncReads: Vfs = {
  ...nodeVfs,
  async readBytes(p) {
    return readFileSync(p);
  },
  async readText(p) {
    return readFileSync(p, 'utf8');
  },
  async stat(p) {
    const s = statSync(p, { throwIfNoEntry: false });
    return s && { size: s.size, isFile: s.isFile(), isDirectory: s.isDirectory(), mtimeMs: s.mtimeMs };
  },
};

/** Findings past a file's bound are posted in batches of this many, so neither thread holds them all. */
const OVERFLOW_BATCH = 500;

const read = inThreadSampleReader(syncReads);
parentPort?.on('message', (msg: { id: number; file: string; options: SampleReadOptions; overflow?: boolean }) => {
  let batch: Finding[] = [];
  const flush = () => {
    if (batch.length) parentPort!.postMessage({ id: msg.id, overflow: batch });
    batch = [];
  };
  const onOverflow = msg.overflow
    ? (f: Finding) => {
        batch.push(f);
        if (batch.length >= OVERFLOW_BATCH) flush();
      }
    : undefined;
  read(msg.file, msg.options, onOverflow).then(
    (result) => (flush(), parentPort!.postMessage({ id: msg.id, result: packSampleFileResult(result) })),
    (err: unknown) => (flush(), parentPort!.postMessage({ id: msg.id, error: err instanceof Error ? err.message : String(err) })),
  );
});
// Loaded: the pool may count this worker as ready.
parentPort?.postMessage({ ready: true });
