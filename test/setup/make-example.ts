/**
 * Writes fixtures/example/: the built-in example score data the demo runs on, drawn from a
 * known generative model (multidimensional 2PL IRT, generator/core/pace/inputs/synthetic.ts) so the
 * true agentic scores are known. Run: `npx tsx test/setup/make-example.ts [OUT_DIR]`.
 * test/example/example-data.test.ts regenerates it and fails on any byte difference.
 *
 * Layout (the same formats real data comes in):
 *   sources/<task>/<model>.csv                          PACE per-model CSV: id,score,metric_name
 *   targets/<model>/instance_results/<target>.json      OpenHands-Index style {id: {resolved}}
 * The model `new-checkpoint` has sources but no targets: it is the checkpoint the demo checks.
 */
import * as path from 'node:path';
import { syntheticPace } from '../../generator/core/pace/inputs/synthetic.js';
import { stableStringify } from '../../generator/core/kernel/stable-json.js';

export const EXAMPLE_SPEC = { models: 24, instances: 1200, tasks: 6, dims: 3, targets: 2, targetInstances: 150, seed: 'aptpace-example', binaryShare: 0.8 };
const TARGET_NAMES = ['swe-sim', 'research-sim'];
const TASK_NAMES = ['code-mcq', 'plan-mcq', 'math', 'reading', 'tool-use', 'knowledge'];
export const CHECKPOINT = 'new-checkpoint';

/** Relative path → file content. Pure, so the test can compare without touching disk. */
export function exampleFiles(): Map<string, string> {
  const data = syntheticPace(EXAMPLE_SPEC);
  const { matrix } = data;
  const n = matrix.instances.length;
  const modelName = (i: number) => (i === matrix.models.length - 1 ? CHECKPOINT : `ref-model-${String(i + 1).padStart(2, '0')}`);
  const taskName = (t: string) => TASK_NAMES[Number(t.replace('task', ''))] ?? t;
  const files = new Map<string, string>();
  matrix.models.forEach((_, m) => {
    const byTask = new Map<string, string[]>();
    matrix.instances.forEach((inst, c) => {
      const task = taskName(inst.task);
      const rows = byTask.get(task) ?? ['id,score,metric_name'];
      rows.push(`${inst.doc_id},${matrix.values[m * n + c]},acc`);
      byTask.set(task, rows);
    });
    for (const [task, rows] of byTask) files.set(`sources/${task}/${modelName(m)}.csv`, `${rows.join('\n')}\n`);
  });
  data.targets.forEach((t, ti) => {
    const target = TARGET_NAMES[ti] ?? t.target;
    for (const [synthName, outcomes] of Object.entries(t.perInstance ?? {})) {
      const m = matrix.models.findIndex((x) => x.name === synthName);
      if (modelName(m) === CHECKPOINT) continue;
      const rows: Record<string, { resolved: boolean }> = {};
      for (const [id, o] of Object.entries(outcomes)) rows[id] = { resolved: o === 1 };
      files.set(`targets/${modelName(m)}/instance_results/${target}.json`, `${stableStringify(rows)}\n`);
    }
  });
  return new Map([...files].sort(([a], [b]) => a.localeCompare(b)));
}

const invoked = process.argv[1] && path.resolve(process.argv[1]).endsWith(path.join('test', 'setup', 'make-example.ts'));
if (invoked) {
  const { nodeVfs } = await import('../../generator/core/kernel/node-vfs.js');
  const out = path.resolve(process.argv[2] ?? path.join(path.dirname(new URL(import.meta.url).pathname), '..', '..', 'fixtures', 'example'));
  for (const [rel, content] of exampleFiles()) await nodeVfs.writeFileAtomic(path.join(out, rel), content);
  console.log(`wrote ${exampleFiles().size} files to ${out}`);
}
