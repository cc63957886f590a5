import type { InstanceRef, ModelRef, ScoreMatrix } from './matrix.js';
import type { FindingSink } from './sink.js';
import { matrixStorage } from '../kernel/shared-memory.js';

/** One (model, task) run's scores: positions into the task's instance list and their values. */
interface Block {
  model: string;
  task: string;
  index: Int32Array;
  values: Float64Array;
  file: string;
  /** Source line (or record) per cell, for findings that point at the rejected row. */
  lines?: Int32Array;
}

interface TaskEntry {
  ids: string[];
  pos: Map<string, number>;
  metric: string | undefined;
  hashes: Array<string | null>;
  metricWarned: boolean;
  /** Ids are our question ids (recorded on each instance so the store joins back to the questions). */
  questionIds: boolean;
}

/**
 * Accumulates per-(model, task) blocks from any number of readers and assembles one
 * models × instances matrix. Cells are only ever written once: a second source with a
 * different value is a `cell-conflict` finding, never a silent overwrite.
 */
export class MatrixBuilder {
  private readonly tasks = new Map<string, TaskEntry>();
  private readonly models = new Map<string, Set<string>>();
  private readonly blocks: Block[] = [];

  constructor(private readonly sink: FindingSink) {}

  get blockCount(): number {
    return this.blocks.length;
  }

  addModel(name: string, source: string): void {
    let sources = this.models.get(name);
    if (!sources) this.models.set(name, (sources = new Set()));
    sources.add(source);
  }

  private task(task: string): TaskEntry {
    let entry = this.tasks.get(task);
    if (!entry) {
      entry = { ids: [], pos: new Map(), metric: undefined, hashes: [], metricWarned: false, questionIds: false };
      this.tasks.set(task, entry);
    }
    return entry;
  }

  /** Index of `docId` within `task`, creating the instance on first sight. */
  instance(task: string, docId: string): number {
    const entry = this.task(task);
    let at = entry.pos.get(docId);
    if (at === undefined) {
      at = entry.ids.length;
      entry.ids.push(docId);
      entry.hashes.push(null);
      entry.pos.set(docId, at);
    }
    return at;
  }

  /** Records the task's metric; a different metric from another source is a warning (first wins). */
  setMetric(task: string, metric: string, where: { file: string; line?: number }): void {
    const entry = this.task(task);
    if (entry.metric === undefined) entry.metric = metric;
    else if (entry.metric !== metric && !entry.metricWarned) {
      entry.metricWarned = true;
      this.sink.add('instance-metric-conflict', where, { instance: `${task}/*`, found: metric, kept: entry.metric });
    }
  }

  metricOf(task: string): string | undefined {
    return this.tasks.get(task)?.metric;
  }

  markQuestionIds(task: string): void {
    this.task(task).questionIds = true;
  }

  setDocHash(task: string, index: number, hash: string): void {
    const entry = this.task(task);
    if (entry.hashes[index] === null) entry.hashes[index] = hash;
  }

  /** `sourceless`: the block's file is not a model source (e.g. a merge copying whole matrices). */
  addBlock(block: Block, sourceless = false): void {
    if (sourceless) {
      if (!this.models.has(block.model)) this.models.set(block.model, new Set());
    } else this.addModel(block.model, block.file);
    this.blocks.push(block);
  }

  build(provenance: Record<string, unknown> = {}): { matrix: ScoreMatrix; conflicts: number } {
    const modelNames = [...this.models.keys()].sort(compareStrings);
    const modelRow = new Map(modelNames.map((m, i) => [m, i]));
    const taskNames = [...this.tasks.keys()].sort(compareTaskNames);

    const instances: InstanceRef[] = [];
    const columnOf = new Map<string, Int32Array>();
    for (const task of taskNames) {
      const entry = this.tasks.get(task)!;
      const order = naturalOrder(entry.ids);
      const column = new Int32Array(entry.ids.length);
      for (const local of order) {
        column[local] = instances.length;
        const docId = entry.ids[local]!;
        const ref: InstanceRef = { key: `${task}/${docId}`, task, doc_id: docId, metric: entry.metric ?? 'score' };
        if (entry.hashes[local]) ref.doc_hash = entry.hashes[local];
        if (entry.questionIds) ref.question_id = docId;
        instances.push(ref);
      }
      columnOf.set(task, column);
    }

    const width = instances.length;
    // Shared memory when large: PACE's kernel thread reads the matrix in place (pace/numerics/kernel-thread.ts).
    const values = matrixStorage(modelNames.length * width);
    const observed = new Uint8Array(modelNames.length * width);
    // Which block wrote a cell, so a conflict can name both sources.
    const writer = new Int32Array(modelNames.length * width).fill(-1);
    let conflicts = 0;
    this.blocks.forEach((block, b) => {
      const row = modelRow.get(block.model)! * width;
      const column = columnOf.get(block.task)!;
      for (let k = 0; k < block.index.length; k++) {
        const cell = row + column[block.index[k]!]!;
        const value = block.values[k]!;
        if (observed[cell]) {
          if (!Object.is(values[cell], value) && values[cell] !== value) {
            conflicts++;
            const first = this.blocks[writer[cell]!]!;
            const line = block.lines?.[k];
            this.sink.add('cell-conflict', line !== undefined ? { file: block.file, line } : { file: block.file }, {
              model: block.model,
              instance: instances[cell - row]!.key,
              value,
              kept: values[cell],
              keptFrom: first.file,
            });
          }
          continue;
        }
        values[cell] = value;
        observed[cell] = 1;
        writer[cell] = b;
      }
    });

    const models: ModelRef[] = modelNames.map((name) => ({ name, sources: [...this.models.get(name)!].sort(compareStrings) }));
    const metrics: Record<string, string> = {};
    for (const task of taskNames) metrics[task] = this.tasks.get(task)!.metric ?? 'score';
    return {
      matrix: { models, instances, values, observed, provenance: { ...provenance, metrics } },
      conflicts,
    };
  }
}

export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Orders `bench/sub` task names segment by segment, like a sorted directory walk. */
export function compareTaskNames(a: string, b: string): number {
  const as = a.split('/');
  const bs = b.split('/');
  for (let i = 0; i < Math.min(as.length, bs.length); i++) {
    const c = compareStrings(as[i]!, bs[i]!);
    if (c) return c;
  }
  return as.length - bs.length;
}

const INTEGER = /^(0|[1-9]\d{0,14})$/;

/** Positions of `ids` in display order: numerically when every id is an integer (harness doc_ids), else by string. */
export function naturalOrder(ids: readonly string[]): number[] {
  const order = ids.map((_, i) => i);
  if (ids.every((id) => INTEGER.test(id))) order.sort((x, y) => Number(ids[x]) - Number(ids[y]));
  else order.sort((x, y) => compareStrings(ids[x]!, ids[y]!));
  return order;
}
