/**
 * A full garbage collection of this thread's heap, asked for where the build knows a phase's
 * garbage is large and the thread is about to wait (reading a kind's draft features renders a
 * bare prompt per draft, gigabytes in all on a large corpus). A thread that waits allocates
 * nothing, so V8 would not collect until it runs again: at 10,000 trajectories the build's
 * thread held about 1 GB of such garbage through the whole of the filter's run, at the build's
 * peak. The collector is reached the way Jest's leak detector reaches it: `--expose-gc` set for
 * a moment and `gc` taken from a new context, the flag then cleared again. Where that is not
 * possible, nothing happens; the build is the same either way.
 */
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let collector: (() => void) | null | undefined;
/** Bytes in use on this thread's heap after the last collection asked for here. */
let inUseAfterLast = 0;

export function collectGarbage(): void {
  if (collector === undefined) {
    try {
      setFlagsFromString('--expose-gc');
      const gc: unknown = runInNewContext('gc');
      collector = typeof gc === 'function' ? (gc as () => void) : null;
    } catch {
      collector = null;
    } finally {
      setFlagsFromString('--no-expose-gc');
    }
  }
  if (!collector) return;
  collector();
  inUseAfterLast = getHeapStatistics().used_heap_size;
}

/**
 * A full collection when this thread's heap holds at least `bytes` more than after the last one
 * asked for here: at a phase boundary (a kind generated, a kind's questions handed over) that
 * growth is mostly the phase's garbage, and a collection costs 0.1–0.4 s whatever it frees, so a
 * boundary that made little is passed over. Returns whether it collected.
 */
export function collectGarbageOver(bytes: number): boolean {
  if (getHeapStatistics().used_heap_size - inUseAfterLast < bytes) return false;
  collectGarbage();
  return collector !== null;
}
