/**
 * Lasso fits on a worker thread, so that `evaluate`'s lasso on every instance (a fifth to half of
 * a K-fold fold at hundreds of models) runs on the second core while the fold's other candidates
 * run on the first. The worker runs the same `lassoFitCoded`, so the fit is the same bit for bit.
 * Where worker threads cannot load this code (TypeScript sources without tsx, as under a test
 * runner) the fit runs in-thread, and so does every later fit once the worker fails (e.g. its
 * entry cannot be loaded). One worker per process, started on first use; it does not keep the
 * process alive while idle.
 */
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { lassoFitCoded, type CodedColumns, type LassoFit } from './lasso-fit.js';

export interface LassoJob {
  id: number;
  columns: CodedColumns;
  y: Float64Array;
  alpha: number | { ratio: number };
  tol: number;
  maxIter: number;
}

let worker: Worker | null | undefined;
let nextId = 0;
const pending = new Map<number, { resolve: (f: LassoFit) => void; reject: (e: Error) => void }>();

function startWorker(): Worker | null {
  if (process.env.APTPACE_LASSO_THREAD === '0') return null;
  const here = fileURLToPath(import.meta.url);
  const ts = here.endsWith('.ts');
  const entry = here.replace(/lasso-thread\.(ts|js)$/, ts ? 'lasso-worker.ts' : 'lasso-worker.js');
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
  w.on('message', (msg: { id: number; fit?: LassoFit; error?: string }) => {
    const p = pending.get(msg.id);
    pending.delete(msg.id);
    if (!pending.size) w.unref();
    if (msg.error !== undefined || !msg.fit) p?.reject(new Error(msg.error ?? 'lasso worker: no fit'));
    else p?.resolve(msg.fit);
  });
  w.on('error', (e) => {
    for (const p of pending.values()) p.reject(e);
    pending.clear();
    worker = null;
  });
  // After the listeners: attaching a 'message' listener refs the worker's port again.
  w.unref();
  return w;
}

/**
 * `lassoFitCoded` on `code()`'s columns, off the main thread when a worker is available (the
 * codes' buffer is handed over to it), in-thread otherwise or if the worker fails.
 */
export function lassoOffThread(code: () => CodedColumns, y: Float64Array, alpha: number | { ratio: number }, tol: number, maxIter: number): Promise<LassoFit> {
  if (worker === undefined) worker = startWorker();
  const w = worker;
  if (!w) return Promise.resolve(lassoFitCoded(code(), y, alpha, tol, maxIter));
  const columns = code();
  const id = nextId++;
  const job: LassoJob = { id, columns, y: Float64Array.from(y), alpha, tol, maxIter };
  const sent = new Promise<LassoFit>((resolve, reject) => pending.set(id, { resolve, reject }));
  w.ref();
  w.postMessage(job, [columns.codes.buffer as ArrayBuffer]);
  // A worker that fails leaves the fit to the main thread (coded again: the codes were handed over).
  return sent.catch(() => lassoFitCoded(code(), y, alpha, tol, maxIter));
}
