import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { TripleReceiver, unpackSampleFileResult, type PackedSampleFileResult, type SampleFileReader, type SampleFileResult } from '../../core/logs/harness/sample-file.js';
import type { SampleReadOptions } from '../../core/logs/harness/samples.js';

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

  interface Pending { resolve: (r: SampleFileResult) => void; reject: (e: Error) => void }
  const workers = Array.from({ length: threads }, () => {
    const worker = ts ? tsWorker(entry) : new Worker(entry);
    const pending = new Map<number, Pending>();
    // Results are unpacked as they arrive, in the order the worker sent them (the triple table needs it).
    const triples = new TripleReceiver();
    let markReady!: () => void;
    const ready = new Promise<void>((resolve) => (markReady = resolve));
    worker.on('message', (msg: { id: number; result?: PackedSampleFileResult | SampleFileResult; error?: string; ready?: boolean }) => {
      if (msg.ready) return markReady();
      const p = pending.get(msg.id);
      pending.delete(msg.id);
      if (msg.error !== undefined) p?.reject(new Error(msg.error));
      else p?.resolve(unpackSampleFileResult(msg.result!, triples));
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
  return {
    ready: Promise.all(workers.map((w) => w.ready)).then(() => undefined),
    read(file: string, options: SampleReadOptions) {
      const live = workers.filter((w) => !w.isDead());
      if (!live.length) return Promise.reject(new Error('no samples worker is running'));
      // The least busy worker takes the file.
      const w = live.reduce((a, b) => (b.pending.size < a.pending.size ? b : a));
      const id = nextId++;
      return new Promise<SampleFileResult>((resolve, reject) => {
        w.pending.set(id, { resolve, reject });
        w.worker.postMessage({ id, file, options });
      });
    },
    async close() {
      await Promise.all(workers.map((w) => w.worker.terminate()));
    },
  };
}

/**
 * A worker running TypeScript sources (development, benchmarks): loader flags given to a
 * worker do not reach its entry module, so the worker registers tsx's hooks itself first.
 */
function tsWorker(entry: string): Worker {
  const api = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(api)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(pathToFileURL(entry).href)}); });`;
  return new Worker(boot, { eval: true });
}
