import type { Finding } from '../kernel/findings.js';
import { MatrixBuilder } from './builder.js';
import type { ScoreMatrix } from './matrix.js';
import { FindingSink } from './sink.js';
import type { FindingListener } from '../kernel/finding-collector.js';

/**
 * Union of two matrices (models by name, instances by key). A cell both observe with
 * different values is a `cell-conflict` (the first matrix's value is kept); an instance
 * whose doc_hash differs between them is an `instance-hash-conflict` and the second
 * matrix's cells for it are not merged.
 */
export function mergeMatrices(
  a: ScoreMatrix,
  b: ScoreMatrix,
  options: { onFinding?: FindingListener; labels?: readonly [string, string] } = {},
): { matrix: ScoreMatrix; findings: Finding[] } {
  const sink = new FindingSink(options.onFinding ? { onFinding: options.onFinding } : {});
  // Findings name where each side came from (a store folder, the score tables) when the caller knows.
  const [firstLabel, secondLabel] = options.labels ?? ['first matrix', 'second matrix'];
  const builder = new MatrixBuilder(sink);
  const hashOf = new Map<string, string>();
  for (const inst of a.instances) if (inst.doc_hash) hashOf.set(inst.key, inst.doc_hash);
  const refused = new Set<string>();
  for (const inst of b.instances) {
    const kept = hashOf.get(inst.key);
    if (kept && inst.doc_hash && kept !== inst.doc_hash) {
      refused.add(inst.key);
      sink.add('instance-hash-conflict', { file: secondLabel, field: inst.key }, { instance: inst.key, found: inst.doc_hash, kept });
    }
  }
  addMatrix(builder, a, firstLabel, new Set());
  addMatrix(builder, b, secondLabel, refused);
  const { matrix } = builder.build({ kind: 'merge', merged: [a.provenance, b.provenance] });
  return { matrix, findings: sink.close() };
}

function addMatrix(builder: MatrixBuilder, m: ScoreMatrix, label: string, refused: Set<string>): void {
  const width = m.instances.length;
  const local = m.instances.map((inst) => {
    const at = builder.instance(inst.task, inst.doc_id);
    if (inst.doc_hash && !refused.has(inst.key)) builder.setDocHash(inst.task, at, inst.doc_hash);
    if (inst.question_id) builder.markQuestionIds(inst.task);
    return at;
  });
  for (const inst of m.instances) builder.setMetric(inst.task, inst.metric, { file: label });
  m.models.forEach((model, row) => {
    for (const source of model.sources.length ? model.sources : [label]) builder.addModel(model.name, source);
    const byTask = new Map<string, { index: number[]; values: number[] }>();
    for (let j = 0; j < width; j++) {
      const cell = row * width + j;
      if (!m.observed[cell]) continue;
      const inst = m.instances[j]!;
      if (refused.has(inst.key)) continue;
      let block = byTask.get(inst.task);
      if (!block) byTask.set(inst.task, (block = { index: [], values: [] }));
      block.index.push(local[j]!);
      block.values.push(m.values[cell]!);
    }
    for (const [task, block] of byTask) {
      builder.addBlock({ model: model.name, task, index: Int32Array.from(block.index), values: Float64Array.from(block.values), file: `${label} (${model.name})` }, true);
    }
  });
}
