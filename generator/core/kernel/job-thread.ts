/**
 * A worker thread that runs one kind of job: each job goes out with an id and comes back as
 * `{ id, result }` or `{ id, error }` (the worker side is `serveJobs`). One worker per thread
 * that asks, started on first use; it keeps the process alive only while a job is out. Where
 * worker threads cannot load the code (TypeScript sources without tsx, as under a test runner)
 * or `disabled()` says so, `post` returns null and the caller runs the job itself; once the
 * worker fails, every job it had is rejected (callers fall back in-thread) and no later job
 * goes to a worker.
 */
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parentPort, Worker, type Transferable } from 'node:worker_threads';

/**
 * A worker's young generation, in MiB. Each worker is a V8 heap of its own, and the build runs
 * four at once beside its own thread; the default young generation lets each hold tens of MiB of
 * short-lived garbage. At 10,000 trajectories the build peaked about 50 MiB lower with 8 (two runs
 * each way) and took as long.
 */
const WORKER_LIMITS = { maxYoungGenerationSizeMb: 8 };

interface Reply<Result> {
  id: number;
  result?: Result;
  error?: string;
}

export interface JobThread<Job, Result> {
  /** Sends `job` to the worker (`transfer`: buffers handed over, not copied); null when there is no worker. */
  post(job: Job, transfer?: readonly Transferable[]): Promise<Result> | null;
  /** Starts the worker now, so it has loaded its code by the first job (no-op when it runs or cannot). */
  start(): void;
  /** Ends the worker once no job is out, freeing its heap (resolves when it has ended); a later `post` starts a new one. */
  close(): Promise<void>;
}

/**
 * `threadModule` is the asking module's `import.meta.url`; the worker entry `worker` (a base name,
 * no extension) lies beside it, as `.ts` in sources and `.js` when built.
 */
export function jobThread<Job extends object, Result>(threadModule: string, worker: string, disabled: () => boolean): JobThread<Job, Result> {
  let w: Worker | null | undefined;
  let nextId = 0;
  const pending = new Map<number, { resolve: (r: Result) => void; reject: (e: Error) => void }>();

  const start = (): Worker | null => {
    if (disabled()) return null;
    const here = fileURLToPath(threadModule);
    const ts = here.endsWith('.ts');
    if (ts && !process.execArgv.some((a) => a.includes('tsx'))) return null;
    const entry = path.join(path.dirname(here), `${worker}.${ts ? 'ts' : 'js'}`);
    let started: Worker;
    try {
      if (ts) {
        // Loader flags given to a worker do not reach its entry module: register tsx's hooks first.
        const api = import.meta.resolve('tsx/esm/api');
        started = new Worker(`import(${JSON.stringify(api)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(pathToFileURL(entry).href)}); });`, { eval: true });
      } else started = new Worker(entry, { resourceLimits: WORKER_LIMITS });
    } catch {
      return null;
    }
    started.on('message', (msg: Reply<Result>) => {
      const p = pending.get(msg.id);
      pending.delete(msg.id);
      if (!pending.size) started.unref();
      if (msg.error !== undefined || msg.result === undefined) p?.reject(new Error(msg.error ?? `${worker}: no result`));
      else p?.resolve(msg.result);
    });
    started.on('error', (e) => {
      for (const p of pending.values()) p.reject(e);
      pending.clear();
      w = null;
    });
    // After the listeners: attaching a 'message' listener refs the worker's port again, and a
    // worker started but never given a job would keep the process from exiting.
    started.unref();
    return started;
  };

  return {
    start() {
      if (w === undefined) w = start();
    },
    post(job, transfer = []) {
      if (w === undefined) w = start();
      const current = w;
      if (!current) return null;
      const id = nextId++;
      const sent = new Promise<Result>((resolve, reject) => pending.set(id, { resolve, reject }));
      current.ref();
      try {
        current.postMessage({ ...job, id }, transfer);
      } catch (e) {
        // A job that cannot be cloned never reaches the worker: fail it here (the caller runs it
        // itself) rather than leave it pending, which would keep the process alive.
        pending.delete(id);
        if (!pending.size) current.unref();
        return Promise.reject(e instanceof Error ? e : new Error(String(e)));
      }
      return sent;
    },
    close() {
      if (!w || pending.size > 0) return Promise.resolve();
      const ending = w.terminate().then(() => undefined);
      w = undefined;
      return ending;
    },
  };
}

/** The worker side: answers each job with `run(job)`'s result, one job at a time in the order sent. */
export function serveJobs<Job, Result>(run: (job: Job) => Result | Promise<Result>, transfer: (result: Result) => readonly Transferable[] = () => []): void {
  let queue: Promise<void> = Promise.resolve();
  parentPort?.on('message', (job: Job & { id: number }) => {
    queue = queue.then(async () => {
      try {
        const result = await run(job);
        parentPort!.postMessage({ id: job.id, result } satisfies Reply<Result>, transfer(result));
      } catch (e) {
        parentPort!.postMessage({ id: job.id, error: e instanceof Error ? e.message : String(e) } satisfies Reply<Result>);
      }
    });
  });
}
