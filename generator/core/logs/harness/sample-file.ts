import { emptyTally, type Finding, type Tally } from '../../kernel/findings.js';
import type { Vfs } from '../../kernel/vfs.js';
import { FindingSink } from '../sink.js';
import type { FindingListener } from '../../kernel/finding-collector.js';
import { LinePrefixCache } from './sample-line.js';
import { readSampleFile, type SampleBlock, type SampleReadOptions } from './samples.js';

/** One samples file read alone: its block, its own findings (folded per file) and tally. */
export interface SampleFileResult {
  block: SampleBlock;
  findings: Finding[];
  tally: Tally;
}

/**
 * Reads one samples file; the default reads in this thread, a worker pool reads in others. The
 * result holds the file's first findings of each code; the rest go to `onOverflow` as they come.
 */
export type SampleFileReader = (file: string, options: SampleReadOptions, onOverflow?: FindingListener) => Promise<SampleFileResult>;

/** The in-thread reader over an injected Vfs; line prefixes repeated across files (one task's docs and prompts in every model's file) are computed once. */
export function inThreadSampleReader(vfs: Vfs): SampleFileReader {
  const cache = new LinePrefixCache();
  return async (file, options, onOverflow) => {
    const sink = new FindingSink({ onOverflow });
    const tally = emptyTally();
    const block = await readSampleFile(vfs, file, options, sink, tally, options.fastPath === false ? undefined : cache);
    return { block, findings: sink.close(), tally };
  };
}

/**
 * A result as it crosses a thread: per-record numbers in one typed array, question ids in one
 * joined string (each cloned in one copy, not per element), and each record's (doc, prompt,
 * target) hash triple as a number into a table both sides keep: a triple crosses as text only
 * the first time its sender sends it (one task's documents recur in every model's file), so
 * the receiver holds one copy of each triple's strings, shared by every record that has it.
 */
export interface PackedSampleFileResult extends Omit<SampleFileResult, 'block'> {
  block: Omit<SampleBlock, 'docIds' | 'values' | 'lines' | 'questionIds' | 'docHashes' | 'promptHashes' | 'targetHashes'> & {
    numbers: Float64Array;
    questionIds: string;
    /** Triples first sent with this result, three strings each, numbered on from the table's end. */
    fresh: string[];
    /** The sender emptied its table before this result: the receiver empties its own. */
    reset: boolean;
  };
}

/** Separates the packed question ids: a record's question id is decoded text and may hold any other character. */
const SEP = '\u0000';
/** The sending side's table of triples sent. */
export class TripleSender {
  private readonly byDoc = new Map<string, { p: string; t: string; id: number }[]>();
  private size = 0;
  /** `limit`: triples held before the table is emptied (by default a few MB of hashes). */
  constructor(private readonly limit = 50_000) {}
  /** Empties the table when full; true when it did (the next result says so). */
  startResult(): boolean {
    if (this.size < this.limit) return false;
    this.byDoc.clear();
    this.size = 0;
    return true;
  }
  id(d: string, p: string, t: string, fresh: string[]): number {
    let held = this.byDoc.get(d);
    const known = held?.find((e) => e.p === p && e.t === t);
    if (known) return known.id;
    if (!held) this.byDoc.set(d, (held = []));
    held.push({ p, t, id: this.size });
    fresh.push(d, p, t);
    return this.size++;
  }
}

/** The receiving side's copy of one sender's table. */
export class TripleReceiver {
  table: string[] = [];
}

export function packSampleFileResult(r: SampleFileResult, sender: TripleSender): PackedSampleFileResult | SampleFileResult {
  const { docIds, values, lines, questionIds, docHashes, promptHashes, targetHashes, ...rest } = r.block;
  // A NUL inside a question id would shift the split: such a block is sent unpacked.
  if (questionIds.some((q) => q.includes(SEP))) return r;
  const reset = sender.startResult();
  const n = docIds.length;
  const numbers = new Float64Array(4 * n);
  const fresh: string[] = [];
  for (let k = 0; k < n; k++) {
    numbers[k] = docIds[k]!;
    numbers[n + k] = values[k]!;
    numbers[2 * n + k] = lines[k]!;
    numbers[3 * n + k] = sender.id(docHashes[k]!, promptHashes[k]!, targetHashes[k]!, fresh);
  }
  return { ...r, block: { ...rest, numbers, questionIds: questionIds.join(SEP), fresh, reset } };
}

/** Must see every result of its sender, in the order sent. */
export function unpackSampleFileResult(p: PackedSampleFileResult | SampleFileResult, receiver: TripleReceiver): SampleFileResult {
  const b = p.block as PackedSampleFileResult['block'];
  if (!(b.numbers instanceof Float64Array)) return p as SampleFileResult;
  const { numbers, questionIds, fresh, reset, ...rest } = b;
  if (reset) receiver.table = [];
  for (const s of fresh) receiver.table.push(s);
  const table = receiver.table;
  const n = numbers.length / 4;
  // Arrays of their final length, filled in place: grown by push, each would be reallocated
  // several times per file, and the main thread's garbage (promoted while a task's files wait
  // to be placed) sets the ingest's peak memory.
  const docIds = new Array<number>(n);
  const values = new Array<number>(n);
  const lines = new Array<number>(n);
  const docHashes = new Array<string>(n);
  const promptHashes = new Array<string>(n);
  const targetHashes = new Array<string>(n);
  for (let k = 0; k < n; k++) {
    docIds[k] = numbers[k]!;
    values[k] = numbers[n + k]!;
    lines[k] = numbers[2 * n + k]!;
    const at = 3 * numbers[3 * n + k]!;
    docHashes[k] = table[at]!;
    promptHashes[k] = table[at + 1]!;
    targetHashes[k] = table[at + 2]!;
  }
  const block: SampleBlock = { ...rest, docIds, values, lines, questionIds: n ? questionIds.split(SEP) : [], docHashes, promptHashes, targetHashes };
  return { ...p, block };
}
