import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { setFlagsFromString } from 'node:v8';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { TripleReceiver, unpackSampleFileResult, type PackedSampleFileResult, type SampleFileReader, type SampleFileResult } from '../../core/logs/harness/sample-file.js';
import type { SampleReadOptions } from '../../core/logs/harness/samples.js';
import type { Finding } from '../../core/kernel/findings.js';
import type { FindingListener } from '../../core/kernel/finding-collector.js';

/**
 * Reads samples files on worker threads (the local file system only): the parsing and hashing
 * of different files runs on different cores, the main thread only merges. Results are the
 * same as the in-thread reader's (the caller merges them in a fixed order).
 */
export interface SamplePool {
  read: SampleFileReader;
  /** Resolves once every worker has loaded its code (a benchmark times the reading, not the start-up). */
  ready: Promise<void>;
  close(): Promise<void>;
}

/**
 * A pool of `threads` workers, or undefined when worker threads cannot load this code (e.g.
 * TypeScript sources without a loader, as under a test runner): the caller then reads in-thread.
 */
export function startSamplePool(threads = Math.min(4, availableParallelism())): SamplePool | undefined {
  if (threads < 2) return undefined;
  const here = fileURLToPath(import.meta.url);
  const ts = here.endsWith('.ts');
  const entry = here.replace(/sample-pool\.(ts|js)$/, ts ? 'sample-worker.ts' : 'sample-worker.js');
  if (!existsSync(entry)) return undefined;
  // TypeScript sources load in a worker only through the loader the parent runs under (tsx).
  if (ts && !process.execArgv.some((a) => a.includes('tsx'))) return undefined;

  // While the pool runs, V8 collects the old generation when it has grown by a tenth, not by
  // its default factor (up to several times): each task's blocks wait for the task's last file,
  // get promoted, and become garbage at once when the task is placed: with V8's default the main
  // thread's heap grows to four times what it holds live. The flag is read at each collection;
  // close() restores V8's default (0).
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  interface Pending { resolve: (r: SampleFileResult) => void; reject: (e: Error) => void; onOverflow?: FindingListener }
  const workers = Array.from({ length: threads }, () => {
    const worker = ts ? tsWorker(entry) : new Worker(entry, { resourceLimits: WORKER_LIMITS });
    const pending = new Map<number, Pending>();
    // Results are unpacked as they arrive, in the order the worker sent them (the triple table needs it).
    const triples = new TripleReceiver();
    let markReady!: () => void;
    const ready = new Promise<void>((resolve) => (markReady = resolve));
    worker.on('message', (msg: { results?: WorkerResult[]; ready?: boolean; overflow?: { id: number; findings: Finding[] } }) => {
      if (msg.ready) return markReady();
      // A batch of a file's findings past its bound, posted before its result (one port keeps the order).
      if (msg.overflow) {
        const p = pending.get(msg.overflow.id);
        for (const f of msg.overflow.findings) void p?.onOverflow?.(f);
        return;
      }
      for (const r of msg.results ?? []) {
        const p = pending.get(r.id);
        pending.delete(r.id);
        if (r.error !== undefined) p?.reject(new Error(r.error));
        else p?.resolve(unpackSampleFileResult(r.result!, triples));
      }
    });
    let dead = false;
    const failAll = (err: Error) => {
      for (const p of pending.values()) p.reject(err);
      pending.clear();
      dead = true;
    };
    worker.on('error', (err) => (failAll(err), markReady()));
    worker.on('exit', (code) => (failAll(new Error(`samples worker exited with code ${code}`)), markReady()));
    return { worker, pending, ready, isDead: () => dead };
  });
  let nextId = 0;
  // Files asked for in one turn of the event loop (a whole task's) go out in batches, one
  // message each way per batch: a message per file wakes the other thread thousands of times.
  const queued: (WorkerRequest & Pending)[] = [];
  const flush = () => {
    while (queued.length) {
      const batch = queued.splice(0, BATCH);
      const live = workers.filter((w) => !w.isDead());
      if (!live.length) {
        for (const r of batch) r.reject(new Error('no samples worker is running'));
        continue;
      }
      // The least busy worker takes the batch.
      const w = live.reduce((a, b) => (b.pending.size < a.pending.size ? b : a));
      for (const r of batch) w.pending.set(r.id, r);
      w.worker.postMessage({ batch: batch.map(({ id, file, options, onOverflow }) => ({ id, file, options, overflow: onOverflow !== undefined })) });
    }
  };
  return {
    ready: Promise.all(workers.map((w) => w.ready)).then(() => undefined),
    read(file: string, options: SampleReadOptions, onOverflow?: FindingListener) {
      return new Promise<SampleFileResult>((resolve, reject) => {
        if (!queued.length) queueMicrotask(flush);
        queued.push({ id: nextId++, file, options, resolve, reject, onOverflow });
      });
    },
    async close() {
      setFlagsFromString('--heap-growing-percent=0');
      await Promise.all(workers.map((w) => w.worker.terminate()));
    },
  };
}

/**
 * A worker's garbage is nearly all short-lived (one line's text and fields): a small young
 * generation collects it as often and as cheaply, and keeps each worker's memory small (with
 * V8's default, two workers add about 80 MB to the peak).
 */
const WORKER_LIMITS = { maxYoungGenerationSizeMb: 4 };

/** How far (in percent) the old generation grows past its live size before V8 collects it, while a pool runs. */
const HEAP_GROWING_PERCENT = 10;

/** Files per message to a worker. */
const BATCH = 16;

/** One file a worker is asked to read. */
export interface WorkerRequest {
  id: number;
  file: string;
  options: SampleReadOptions;
  /** Post the file's findings past its bound back as they come (`{overflow: {id, findings}}`). */
  overflow?: boolean;
}

/** What a worker posts back per file: the packed result, or why it could not read the file. */
export interface WorkerResult {
  id: number;
  result?: PackedSampleFileResult | SampleFileResult;
  error?: string;
}

/**
 * A worker running TypeScript sources (development, benchmarks): loader flags given to a
 * worker do not reach its entry module, so the worker registers tsx's hooks itself first.
 */
function tsWorker(entry: string): Worker {
  const api = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(api)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(pathToFileURL(entry).href)}); });`;
  return new Worker(boot, { eval: true, resourceLimits: WORKER_LIMITS });
}
