import { describe, expect, it } from 'vitest';
import { renderCoverage } from '../../generator/core/logs/coverage.js';
import type { ScoreMatrix } from '../../generator/core/logs/matrix.js';

/** The ingest coverage table shows every task: 30 tasks become blocks of 12 columns, none cut. */
describe('ingest coverage table', () => {
  it('shows all 30 tasks in blocks of 12 columns, with a legend line per task', () => {
    const tasks = Array.from({ length: 30 }, (_, i) => `task${String(i + 1).padStart(2, '0')}`);
    const instances = tasks.map((task) => ({ key: `${task}/0`, task, id: '0', metric: 'acc' }));
    const models = ['m1', 'm2'].map((name) => ({ name, sources: [name] }));
    const matrix = {
      models, instances, values: new Float64Array(2 * 30).fill(1), observed: new Uint8Array(2 * 30).fill(1), provenance: {},
    } as unknown as ScoreMatrix;
    const text = renderCoverage(matrix);
    expect(text).not.toMatch(/more task/);
    for (let i = 1; i <= 30; i++) expect(text).toContain(`[${i}]`);
    const headers = text.split('\n').filter((l) => l.startsWith('model '));
    expect(headers).toHaveLength(3);
    expect(headers.map((h) => h.split(/\s+/).length - 1)).toEqual([12, 12, 6]);
    expect(text.split('\n').filter((l) => /^\[\d+\] task/.test(l))).toHaveLength(30);
  });
});
