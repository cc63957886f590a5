/**
 * Worker-thread entry of the samples-file pool (`sample-pool.ts`): reads each file it is sent
 * with the same reader as the main thread and posts back the block, findings and tally.
 * A worker has nothing else to do while a file loads, so whole files are read synchronously
 * (an async read costs several times the CPU of a sync one for a file of a few hundred KB);
 * files too big to hold are still streamed.
 */
import { Buffer } from 'node:buffer';
import { closeSync, fstatSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { nodeVfs } from '../../core/kernel/node-vfs.js';
import type { Vfs } from '../../core/kernel/vfs.js';
import { inThreadSampleReader, packSampleFileResult, TripleSender } from '../../core/logs/harness/sample-file.js';
import type { WorkerRequest, WorkerResult } from './sample-pool.js';
import type { Finding } from '../../core/kernel/findings.js';

/** Findings past a file's bound are posted in batches of this many, so neither thread holds them all. */
const OVERFLOW_BATCH = 500;

/**
 * One buffer every file is read into, grown when a file is larger: a fresh buffer per file
 * (a few hundred KB each, thousands of files) is garbage the collector has to chase. The
 * bytes returned are valid until the next read: this worker reads one file at a time, and
 * the reader keeps nothing that points into them (it copies what it caches).
 */
let shared = Buffer.allocUnsafeSlow(256 << 10);

function readInto(p: string): Uint8Array {
  const fd = openSync(p, 'r');
  try {
    let n = 0;
    for (;;) {
      if (n === shared.length) {
        const grown = Buffer.allocUnsafeSlow(Math.max(shared.length * 2, fstatSync(fd).size + 1));
        shared.copy(grown, 0, 0, n);
        shared = grown;
      }
      const got = readSync(fd, shared, n, shared.length - n, null);
      if (got === 0) return shared.subarray(0, n);
      n += got;
    }
  } finally {
    closeSync(fd);
  }
}

const syncReads: Vfs = {
  ...nodeVfs,
  async readBytes(p) {
    return readInto(p);
  },
  async readText(p) {
    return readFileSync(p, 'utf8');
  },
  async stat(p) {
    const s = statSync(p, { throwIfNoEntry: false });
    return s && { size: s.size, isFile: s.isFile(), isDirectory: s.isDirectory(), mtimeMs: s.mtimeMs };
  },
};

const read = inThreadSampleReader(syncReads);
const sent = new TripleSender();

/** Reads a batch of files in order and posts their results in one message. */
async function readBatch(batch: WorkerRequest[]): Promise<void> {
  const results: WorkerResult[] = [];
  for (const { id, file, options, overflow } of batch) {
    // Posted before the batch's results: one port keeps the order, so the pool has them all when the file's result arrives.
    let held: Finding[] = [];
    const flush = () => {
      if (held.length) parentPort!.postMessage({ overflow: { id, findings: held } });
      held = [];
    };
    const onOverflow = overflow
      ? (f: Finding) => {
          held.push(f);
          if (held.length >= OVERFLOW_BATCH) flush();
        }
      : undefined;
    try {
      const result = await read(file, options, onOverflow);
      flush();
      results.push({ id, result: packSampleFileResult(result, sent) });
    } catch (err) {
      flush();
      results.push({ id, error: err instanceof Error ? err.message : String(err) });
    }
  }
  parentPort!.postMessage({ results });
}

// Batches are handled one after another: results are packed (the triple table) in the order they are posted.
let chain = Promise.resolve();
parentPort?.on('message', (msg: { batch: WorkerRequest[] }) => {
  chain = chain.then(() => readBatch(msg.batch));
});
// Loaded: the pool may count this worker as ready.
parentPort?.postMessage({ ready: true });
