/**
 * The proxy set as files a harness run consumes: `samples.json` in lm_eval's `--samples`
 * shape ({task: [doc ids]}, ids sorted and de-duplicated — the harness mislabels doc_id for
 * unsorted lists), and `proxy-set.json` listing every instance, harness-runnable or not.
 */
import type { InstanceRef } from '../../logs/matrix.js';

export interface ProxyFiles {
  samples: Record<string, number[]>;
  nonNumeric: { count: number; tasks: string[] };
}

export function proxySamples(proxy: InstanceRef[]): ProxyFiles {
  const samples = new Map<string, Set<number>>();
  const bad = new Map<string, number>();
  for (const inst of proxy) {
    if (!/^\d+$/.test(inst.doc_id)) {
      bad.set(inst.task, (bad.get(inst.task) ?? 0) + 1);
      continue;
    }
    const set = samples.get(inst.task) ?? new Set<number>();
    set.add(Number(inst.doc_id));
    samples.set(inst.task, set);
  }
  const out: Record<string, number[]> = {};
  for (const task of [...samples.keys()].sort()) out[task] = [...samples.get(task)!].sort((a, b) => a - b);
  return { samples: out, nonNumeric: { count: [...bad.values()].reduce((a, b) => a + b, 0), tasks: [...bad.keys()].sort() } };
}
