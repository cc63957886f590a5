/**
 * The build asks for a full collection where a phase's garbage is large and its thread is about
 * to wait (kernel/collect-garbage.ts). It must collect: a few hundred MB of dropped objects are
 * gone from the heap right after the call, and a second call works as the first. At a kind's
 * boundary it collects only when the heap has grown by the given amount since its last collection
 * (`collectGarbageOver`).
 */
import { describe, expect, it } from 'vitest';
import { collectGarbage, collectGarbageOver } from '../../generator/core/kernel/collect-garbage.js';

const MB = 1024 * 1024;

function dropLargeGarbage(): void {
  // About 2 million small objects and 200 strings of 1 MB, unreachable once this returns.
  const objects = Array.from({ length: 2_000_000 }, (_, i) => ({ i, s: `v${i}` }));
  const strings = Array.from({ length: 200 }, (_, i) => `${i}`.padEnd(MB, 'x'));
  expect(objects.length + strings.length).toBe(2_000_200);
}

describe('collectGarbage', () => {
  it('frees what nothing reaches, every time it is called', () => {
    for (let round = 0; round < 2; round++) {
      collectGarbage();
      const base = process.memoryUsage().heapUsed;
      dropLargeGarbage();
      const withGarbage = process.memoryUsage().heapUsed;
      collectGarbage();
      const after = process.memoryUsage().heapUsed;
      // Garbage a waiting thread would otherwise hold: most of it goes at once.
      expect(withGarbage - base).toBeGreaterThan(100 * MB);
      expect(after - base).toBeLessThan((withGarbage - base) / 4);
    }
    // The flag is set only for the moment the collector is taken: no `gc` appears in this context.
    expect((globalThis as { gc?: unknown }).gc).toBeUndefined();
  });

  it('collects at a boundary only past the growth asked for', () => {
    collectGarbage();
    // Next to nothing made since: passed over.
    expect(collectGarbageOver(64 * MB)).toBe(false);
    const base = process.memoryUsage().heapUsed;
    dropLargeGarbage();
    const withGarbage = process.memoryUsage().heapUsed;
    expect(withGarbage - base).toBeGreaterThan(100 * MB);
    // More than asked for: collected, and the garbage is gone.
    expect(collectGarbageOver(64 * MB)).toBe(true);
    expect(process.memoryUsage().heapUsed - base).toBeLessThan((withGarbage - base) / 4);
    // Measured from that collection: passed over again.
    expect(collectGarbageOver(64 * MB)).toBe(false);
  });
});
