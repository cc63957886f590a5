/**
 * Tree fits (boosted-trees.ts) on a worker thread, so that the adversarial filter fits some of a
 * cross-fit's folds on a second core while it fits the others (and the logistic learners) on its
 * own. The worker runs the same `fitBoostedFlat` on the same rows, so the model is the same bit for
 * bit. Where worker threads cannot load this code (TypeScript sources without tsx, as under a test
 * runner), or with APTPACE_FILTER_THREAD=0, `fitTreesOffThread` returns null and the caller fits
 * in-thread; a failed worker's fits are made in-thread. One worker per thread that asks, started
 * on first use; it does not keep the process alive while idle.
 */
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { type BoostedModel, fitBoostedFlat } from './boosted-trees.js';

export interface TreesJob {
  id: number;
  x: Float64Array;
  width: number;
  y: Uint8Array;
}

let worker: Worker | null | undefined;
let nextId = 0;
const pending = new Map<number, { resolve: (m: BoostedModel) => void; reject: (e: Error) => void }>();

function startWorker(): Worker | null {
  if (process.env.APTPACE_FILTER_THREAD === '0') return null;
  const here = fileURLToPath(import.meta.url);
  const ts = here.endsWith('.ts');
  const entry = here.replace(/trees-thread\.(ts|js)$/, ts ? 'trees-worker.ts' : 'trees-worker.js');
  if (ts && !process.execArgv.some((a) => a.includes('tsx'))) return null;
  let w: Worker;
  try {
    if (ts) {
      // Loader flags given to a worker do not reach its entry module: register tsx's hooks first.
      const api = import.meta.resolve('tsx/esm/api');
      w = new Worker(`import(${JSON.stringify(api)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(pathToFileURL(entry).href)}); });`, { eval: true });
    } else w = new Worker(entry);
  } catch {
    return null;
  }
  w.on('message', (msg: { id: number; model?: BoostedModel; error?: string }) => {
    const p = pending.get(msg.id);
    pending.delete(msg.id);
    if (!pending.size) w.unref();
    if (msg.error !== undefined || !msg.model) p?.reject(new Error(msg.error ?? 'trees worker: no model'));
    else p?.resolve(msg.model);
  });
  w.on('error', (e) => {
    for (const p of pending.values()) p.reject(e);
    pending.clear();
    worker = null;
  });
  // After the listeners: attaching a 'message' listener refs the worker's port again, and a worker
  // started but never given a job would keep the process from exiting.
  w.unref();
  return w;
}

/** Whether fits can go to a worker from this thread. */
export function treesThreadAvailable(): boolean {
  if (worker === undefined) worker = startWorker();
  return worker !== null;
}

/** `fitBoostedFlat(x, width, y)` on the worker; null when there is none (fit in-thread then). The rows are copied, not handed over. */
export function fitTreesOffThread(x: Float64Array, width: number, y: Uint8Array): Promise<BoostedModel> | null {
  if (!treesThreadAvailable()) return null;
  const w = worker!;
  const id = nextId++;
  const sent = new Promise<BoostedModel>((resolve, reject) => pending.set(id, { resolve, reject }));
  w.ref();
  w.postMessage({ id, x, width, y } satisfies TreesJob);
  return sent.catch(() => fitBoostedFlat(x, width, y));
}
