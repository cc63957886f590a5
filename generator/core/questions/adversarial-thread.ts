/**
 * The adversarial filter's numeric core (adversarial-choose.ts) on a worker thread, so that the
 * build generates and renders one kind on the first core while the filter of another runs on the
 * second. The worker runs the same `runFilterCore` on the same numbers (structured clones are
 * exact), so its choices and drops are the same bit for bit. Where worker threads cannot load
 * this code (TypeScript sources without tsx, as under a test runner), or with
 * APTPACE_FILTER_THREAD=0, the core runs in-thread, and so does every later run once the worker
 * fails. One worker per process, started on first use; it does not keep the process alive while idle.
 */
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { CoreResult, CoreTask } from './adversarial-choose.js';
import { type CoreRunner, runInThread } from './adversarial-filter.js';

export interface FilterJob {
  id: number;
  tasks: CoreTask[];
}

let worker: Worker | null | undefined;
let nextId = 0;
const pending = new Map<number, { resolve: (r: CoreResult[]) => void; reject: (e: Error) => void }>();

function startWorker(): Worker | null {
  if (process.env.APTPACE_FILTER_THREAD === '0') return null;
  const here = fileURLToPath(import.meta.url);
  const ts = here.endsWith('.ts');
  const entry = here.replace(/adversarial-thread\.(ts|js)$/, ts ? 'adversarial-worker.ts' : 'adversarial-worker.js');
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
  w.on('message', (msg: { id: number; results?: CoreResult[]; error?: string }) => {
    const p = pending.get(msg.id);
    pending.delete(msg.id);
    if (!pending.size) w.unref();
    if (msg.error !== undefined || !msg.results) p?.reject(new Error(msg.error ?? 'filter worker: no results'));
    else p?.resolve(msg.results);
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

/** Runs the tasks' cores on the worker when there is one (in the order sent), in-thread otherwise or if the worker fails. */
export const runOffThread: CoreRunner = (tasks) => {
  if (worker === undefined) worker = startWorker();
  const w = worker;
  if (!w || tasks.length === 0) return runInThread(tasks);
  const id = nextId++;
  const sent = new Promise<CoreResult[]>((resolve, reject) => pending.set(id, { resolve, reject }));
  w.ref();
  w.postMessage({ id, tasks } satisfies FilterJob);
  return sent.catch(() => runInThread(tasks));
};
