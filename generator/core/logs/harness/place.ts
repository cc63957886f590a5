import type { Tally } from '../../kernel/findings.js';
import { compareStrings, type MatrixBuilder } from '../builder.js';
import type { FindingSink } from '../sink.js';
import { metricLabel, type MetricChoice } from './metric-choice.js';
import type { SampleBlock } from './samples.js';
import { isPartial, type Winner } from './select.js';

export interface CoverageCell {
  /** Instances with a score in the matrix. */
  observed: number;
  /** Docs the run evaluated (n-samples.effective), when known. */
  expected?: number;
  /** Timestamp of the run the cells came from (harness logs only). */
  ts?: string;
}

export interface Coverage {
  models: string[];
  tasks: string[];
  cells: Record<string, Record<string, CoverageCell>>;
}

export interface PlacedBlock {
  w: Winner;
  block: SampleBlock;
}

/** One (doc, prompt, target) hash triple of a document, with its votes. */
interface Triple {
  d: string;
  p: string;
  t: string;
  /** Models holding it, and complete runs among them. */
  count: number;
  complete: number;
}

/** The triple as one string: the order of last resort between equally voted triples. */
const joined = (x: Triple) => `${x.d}\u0000${x.p}\u0000${x.t}`;

/**
 * Instance identity: our question id (`doc.id`) when every record of the task carries a
 * distinct one — it survives re-emitting the suite with more questions and sharding —
 * otherwise the harness's `doc_id` (a position in the task's documents).
 */
function idsOf(blocks: PlacedBlock[]): { byQuestion: boolean; ids: (b: PlacedBlock) => string[] } {
  const filled = blocks.filter((b) => b.block.docIds.length > 0);
  const byQuestion = filled.length > 0 && filled.every(({ block }) => block.questionIds.every((q) => q !== '') && new Set(block.questionIds).size === block.questionIds.length);
  // One string per doc id for the whole task, not one per model's record: the maps below then
  // hash each id once.
  const names = new Map<number, string>();
  const name = (n: number) => {
    let s = names.get(n);
    if (s === undefined) names.set(n, (s = String(n)));
    return s;
  };
  return { byQuestion, ids: (b) => (byQuestion ? b.block.questionIds : b.block.docIds.map(name)) };
}

/**
 * Places one task's winning blocks (all models, all shards) into the builder. Per model,
 * shards are merged and checked: a document in two shards is a `shard-overlap`, a missing
 * shard `shard-missing`, partial runs that leave documents out `shard-gap` (all errors).
 * Across models, per document the (doc, prompt, target) hash triple most models hold is the
 * reference; ties go to the triple complete runs hold, then the smaller triple.
 */
export function placeTask(task: string, choice: MetricChoice, blocks: PlacedBlock[], builder: MatrixBuilder, sink: FindingSink, tally: Tally, coverage: Coverage): void {
  const label = metricLabel(choice);
  const { byQuestion, ids } = idsOf(blocks);
  if (!byQuestion && blocks.some((b) => b.w.shard)) {
    // Shard tasks number their docs from 0 each: without question ids they cannot be told apart.
    for (const b of blocks) {
      if (!b.block.docIds.length) continue;
      sink.add('shard-without-question-ids', { file: b.w.file }, { model: b.w.run.model, task, records: b.block.docIds.length });
      tally.accepted -= b.block.docIds.length;
      tally.rejected += b.block.docIds.length;
    }
    return;
  }
  if (byQuestion) builder.markQuestionIds(task);
  // Each block's ids, built once: both passes below need them per record.
  const idList = new Map(blocks.map((b) => [b, ids(b)]));

  // Votes per document: each distinct (doc, prompt, target) hash triple, the models holding it
  // and the complete runs among them. Triples are compared field by field: no joined string
  // is built per record.
  const votes = new Map<string, Triple[]>();
  for (const b of blocks) {
    const complete = !isPartial(b.w.run.info.leafTasks.get(b.w.task)) && !b.w.shard ? 1 : 0;
    const { docHashes: dh, promptHashes: ph, targetHashes: th } = b.block;
    const list = idList.get(b)!;
    for (let k = 0; k < list.length; k++) {
      const d = dh[k]!;
      if (!d) continue;
      const id = list[k]!;
      const p = ph[k]!;
      const t = th[k]!;
      const held = votes.get(id);
      let same: Triple | undefined;
      // An indexed loop: a for…of here allocates an iterator per record.
      for (let h = 0; held && h < held.length; h++) {
        const c = held[h]!;
        if (c.d === d && c.p === p && c.t === t) {
          same = c;
          break;
        }
      }
      if (same) {
        same.count++;
        same.complete += complete;
      } else if (held) held.push({ d, p, t, count: 1, complete });
      else votes.set(id, [{ d, p, t, count: 1, complete }]);
    }
  }
  const reference = new Map<string, Triple & { disputed: boolean }>();
  for (const [id, held] of votes) {
    const best = held.length === 1 ? held[0]! : [...held].sort((a, b) => b.count - a.count || b.complete - a.complete || compareStrings(joined(a), joined(b)))[0]!;
    reference.set(id, { ...best, disputed: held.length > 1 });
  }

  builder.setMetric(task, label, { file: blocks[0]?.w.file ?? task });
  const byModel = new Map<string, PlacedBlock[]>();
  for (const b of blocks) {
    if (!byModel.has(b.w.run.model)) byModel.set(b.w.run.model, []);
    byModel.get(b.w.run.model)!.push(b);
  }
  // Each id's slot in the task, for the per-model overlap check below: one map per task, not
  // one per model (a map per model and task was most of the main thread's garbage).
  const slotOf = new Map<string, number>();
  for (const list of idList.values()) for (let k = 0; k < list.length; k++) if (!slotOf.has(list[k]!)) slotOf.set(list[k]!, slotOf.size);
  const seenBy = new Int32Array(slotOf.size).fill(-1);
  const seenFile = new Array<string>(slotOf.size);
  let modelNo = -1;
  for (const [model, own] of [...byModel].sort(([a], [b]) => compareStrings(a, b))) {
    modelNo++;
    let covered = 0;
    let observed = 0;
    let expected: number | undefined = 0;
    for (const b of own.sort((x, y) => compareStrings(x.w.file, y.w.file))) {
      const { w, block } = b;
      const ids = idList.get(b)!;
      // Filled in place; cut to the records kept only when some were not.
      const index = new Int32Array(ids.length);
      const values = new Float64Array(ids.length);
      const lines = new Int32Array(ids.length);
      let kept = 0;
      const mismatched = { doc_hash: { count: 0, docId: '', majority: 0 }, prompt_hash: { count: 0, docId: '', majority: 0 }, target_hash: { count: 0, docId: '', majority: 0 } };
      const overlap = { count: 0, first: '', other: '' };
      for (let k = 0; k < ids.length; k++) {
        const id = ids[k]!;
        const ref = block.docHashes[k] ? reference.get(id) : undefined;
        if (ref?.disputed && !(block.docHashes[k] === ref.d && block.promptHashes[k] === ref.p && block.targetHashes[k] === ref.t)) {
          const field = block.docHashes[k] !== ref.d ? 'doc_hash' : block.promptHashes[k] !== ref.p ? 'prompt_hash' : 'target_hash';
          const m = mismatched[field];
          if (m.count++ === 0) {
            m.docId = id;
            m.majority = ref.count;
          }
          tally.rejected++;
          tally.accepted--;
          continue;
        }
        const slot = slotOf.get(id)!;
        if (seenBy[slot] === modelNo) {
          const prior = seenFile[slot]!;
          if (overlap.count++ === 0) {
            overlap.first = id;
            overlap.other = prior;
          }
          tally.rejected++;
          tally.accepted--;
          continue;
        }
        seenBy[slot] = modelNo;
        seenFile[slot] = w.file;
        covered++;
        const at = builder.instance(task, id);
        if (ref) builder.setDocHash(task, at, ref.d);
        index[kept] = at;
        values[kept] = block.values[k]!;
        lines[kept] = block.lines[k]!;
        kept++;
      }
      for (const field of ['doc_hash', 'prompt_hash', 'target_hash'] as const) {
        const m = mismatched[field];
        if (!m.count) continue;
        sink.add(field === 'doc_hash' ? 'instance-hash-conflict' : 'prompt-hash-conflict', { file: w.file }, { model, task, count: m.count, docId: m.docId, majority: m.majority, field });
      }
      if (overlap.count) sink.add('shard-overlap', { file: w.file }, { model, task, count: overlap.count, first: overlap.first, other: overlap.other });
      const whole = kept === ids.length;
      builder.addBlock({ model, task, index: whole ? index : index.slice(0, kept), values: whole ? values : values.slice(0, kept), lines: whole ? lines : lines.slice(0, kept), file: w.file });
      observed += kept;
      const effective = w.run.info.leafTasks.get(w.task)?.nSamples?.effective;
      expected = expected !== undefined && effective !== undefined ? expected + effective : undefined;
    }
    checkShardCoverage(model, task, own, covered, sink);
    const cell: CoverageCell = { observed, ts: own.map((b) => b.w.run.files.ts).sort().join(', ') };
    if (expected !== undefined) cell.expected = expected;
    (coverage.cells[model] ??= {})[task] = cell;
  }
}

/** Every shard present; partial runs merged as shards cover every document of the task. */
function checkShardCoverage(model: string, task: string, own: PlacedBlock[], covered: number, sink: FindingSink): void {
  const shards = own.filter((b) => b.w.shard);
  if (shards.length) {
    const of = Math.max(...shards.map((b) => b.w.shard!.of));
    const present = new Set(shards.filter((b) => b.w.shard!.of === of).map((b) => b.w.shard!.index));
    const missing = Array.from({ length: of }, (_, i) => i + 1).filter((i) => !present.has(i));
    const strays = shards.filter((b) => b.w.shard!.of !== of).map((b) => b.w.task);
    if (missing.length || strays.length) {
      sink.add('shard-missing', { file: shards[0]!.w.file }, { model, task, of, missing: missing.map((i) => `${task}__shard${i}of${of}`).join(', ') || 'none', strays: strays.join(', ') || 'none' });
    }
    return;
  }
  if (own.length < 2) return;
  const total = Math.max(...own.map((b) => b.w.run.info.leafTasks.get(b.w.task)?.nSamples?.original ?? 0));
  if (total > covered) sink.add('shard-gap', { file: own[0]!.w.file }, { model, task, covered, total, runs: own.length });
}
