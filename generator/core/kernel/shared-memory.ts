/**
 * Float64 storage on a SharedArrayBuffer, for matrices that a kernel thread reads in place
 * (pace/numerics/kernel-thread.ts): posting a typed array on shared memory to a worker shares
 * it, where an ordinary one would be copied (hundreds of MiB at 500 × 100,000) on every job.
 */
export function sharedFloat64(length: number): Float64Array {
  return new Float64Array(new SharedArrayBuffer(length * Float64Array.BYTES_PER_ELEMENT));
}

export function isShared(a: ArrayBufferView): boolean {
  return typeof SharedArrayBuffer !== 'undefined' && a.buffer instanceof SharedArrayBuffer;
}

/**
 * Cells from which a matrix is worth sharing: below this a kernel thread's round trip costs more
 * than the second thread gains, so pace/numerics/kernel-thread.ts splits only larger kernels.
 */
export const sharedMinCells = 1 << 22;

/** Storage for a score matrix of `length` cells: shared from `sharedMinCells` on, ordinary below. */
export function matrixStorage(length: number): Float64Array {
  return length >= sharedMinCells ? sharedFloat64(length) : new Float64Array(length);
}
