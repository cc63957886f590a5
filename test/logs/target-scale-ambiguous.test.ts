import { describe, expect, it } from 'vitest';
import { MemoryVfs } from '../../generator/core/kernel/memory-vfs.js';
import { readTargets } from '../../generator/core/logs/targets/index.js';

describe('target scale', () => {
  it('fractions beside percentages without --scale are a warning, not only the inferred-scale info', async () => {
    const vfs = new MemoryVfs({ '/a/wide.csv': 'model,swe,gaia\nm1,0.45,0.4\nm2,62,0.5\nm3,12,0.3\n' });
    const { findings } = await readTargets(vfs, ['/a/wide.csv']);
    const ambiguous = findings.filter((f) => f.code === 'target-scale-ambiguous');
    expect(ambiguous.map((f) => [f.severity, f.args.target, f.args.fractions, f.args.percents])).toEqual([['warning', 'swe', 1, 2]]);
    // With the scale given, nothing is guessed.
    expect((await readTargets(vfs, ['/a/wide.csv'], { scale: 'percent' })).findings.map((f) => f.code)).not.toContain('target-scale-ambiguous');
  });
});
