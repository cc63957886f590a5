/** Which source benchmarks a proxy set draws on: share of instances and of |weight| per task. */
export interface SkillShare {
  task: string;
  instances: number;
  instanceShare: number;
  weightShare: number;
}

export function skillMap(weights: Array<{ task: string; weight: number }>): SkillShare[] {
  const byTask = new Map<string, { n: number; w: number }>();
  let total = 0;
  for (const { task, weight } of weights) {
    const e = byTask.get(task) ?? { n: 0, w: 0 };
    e.n++;
    e.w += Math.abs(weight);
    total += Math.abs(weight);
    byTask.set(task, e);
  }
  return [...byTask.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([task, e]) => ({ task, instances: e.n, instanceShare: e.n / weights.length, weightShare: total > 0 ? e.w / total : 0 }));
}
