/**
 * A second thread for the kernels that stream over the whole matrix (the randomized SVD's
 * products, column Spearman): at 500 × 100,000 they are most of a fit, and each splits into
 * chunks (row groups or column blocks) whose outputs do not overlap and whose sums run in the
 * same order whichever thread runs them, so the result is the same bit for bit.
 *
 * The caller and the worker (kernel-worker.ts) take chunks from one shared counter until none
 * is left, then the caller waits (Atomics.wait, synchronously: the kernels' callers are
 * synchronous) for the chunks the worker took. A worker that has not started yet, is busy, or
 * cannot be loaded (TypeScript sources under a test runner, `APTPACE_KERNEL_THREAD=0`) takes
 * none, and the caller runs them all, so nothing waits on a worker that never comes.
 */
import { jobThread } from '../../kernel/job-thread.js';
import { isShared, sharedMinCells } from '../../kernel/shared-memory.js';

/** Kernel names the worker knows (kernel-worker.ts maps each to the same chunk function). */
export type KernelKind = 'mulRight' | 'mulLeftT' | 'binaryMasks' | 'columnMasks' | 'mulRightBits' | 'mulLeftTBits' | 'binarySums' | 'rankedColumns';

export interface KernelJob {
  kind: KernelKind;
  args: object;
  /** [next chunk to take, chunks finished, failed (1 when a worker chunk threw)]. */
  control: Int32Array;
  chunks: number;
}

const thread = jobThread<KernelJob, true>(import.meta.url, 'kernel-worker', () => process.env.APTPACE_KERNEL_THREAD === '0');

/**
 * Starts the kernel worker ahead of the first split kernel: loading its code takes a good part
 * of a second, during which the kernels would otherwise run on the calling thread alone.
 */
export function startKernelThread(): void {
  thread.start();
}

/** Whether a kernel over `data` with this many cells should be split across threads (below `sharedMinCells` a job's round trip costs more than the second thread gains). */
export function worthSharing(data: Float64Array, cells: number): boolean {
  return cells >= sharedMinCells && isShared(data);
}

/** Takes chunks from the shared counter until none is left; run by the caller and the worker alike. */
export function takeChunks(control: Int32Array, chunks: number, run: (chunk: number) => void): void {
  for (;;) {
    const i = Atomics.add(control, 0, 1);
    if (i >= chunks) return;
    try {
      run(i);
    } catch (e) {
      Atomics.store(control, 2, 1);
      throw e;
    } finally {
      Atomics.add(control, 1, 1);
      Atomics.notify(control, 1);
    }
  }
}

/**
 * Runs chunks 0…chunks−1 of a kernel, on this thread and the kernel worker when `share` (every
 * array in `args` the chunks write lies on shared memory); `run(i)` must write chunk i's
 * outputs whole (not add to them), so a chunk can be run again after a failure.
 */
export function runChunks(kind: KernelKind, args: object, chunks: number, run: (chunk: number) => void, share: boolean): void {
  if (!share || chunks < 2) {
    for (let i = 0; i < chunks; i++) run(i);
    return;
  }
  const control = new Int32Array(new SharedArrayBuffer(3 * Int32Array.BYTES_PER_ELEMENT));
  thread.post({ kind, args, control, chunks })?.catch(() => undefined);
  takeChunks(control, chunks, run);
  for (;;) {
    const done = Atomics.load(control, 1);
    if (done >= chunks) break;
    Atomics.wait(control, 1, done, 1000);
  }
  // A chunk that threw on the worker is run again here (chunks write their outputs whole).
  if (Atomics.load(control, 2)) for (let i = 0; i < chunks; i++) run(i);
}
