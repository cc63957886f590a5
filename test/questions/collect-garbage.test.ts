/**
 * The build asks for a full collection where a phase's garbage is large and its thread is about
 * to wait (kernel/collect-garbage.ts). It must collect: a few hundred MB of dropped objects are
 * gone from the heap right after the call, and a second call works as the first.
 */
import { describe, expect, it } from 'vitest';
import { collectGarbage } from '../../generator/core/kernel/collect-garbage.js';

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
});
