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

/** A result as it crosses a thread: per-record lists as one typed array or one joined string (cloned in one copy each, not per element). */
export interface PackedSampleFileResult extends Omit<SampleFileResult, 'block'> {
  block: Omit<SampleBlock, 'docIds' | 'values' | 'lines' | 'questionIds' | 'docHashes' | 'promptHashes' | 'targetHashes'> & {
    numbers: Float64Array;
    strings: string;
  };
}

const STRING_LISTS = ['questionIds', 'docHashes', 'promptHashes', 'targetHashes'] as const;
/** Separates the packed strings: a record's question id is decoded text and may hold any other character. */
const SEP = '\u0000';

export function packSampleFileResult(r: SampleFileResult): PackedSampleFileResult {
  const { docIds, values, lines, questionIds, docHashes, promptHashes, targetHashes, ...rest } = r.block;
  const n = docIds.length;
  const numbers = new Float64Array(3 * n);
  numbers.set(docIds, 0);
  numbers.set(values, n);
  numbers.set(lines, 2 * n);
  const lists = { questionIds, docHashes, promptHashes, targetHashes };
  // A NUL inside a question id would shift the split: such a block is sent unpacked.
  if (questionIds.some((q) => q.includes(SEP))) return r as unknown as PackedSampleFileResult;
  return { ...r, block: { ...rest, numbers, strings: STRING_LISTS.map((k) => lists[k].join(SEP)).join(SEP) } };
}

export function unpackSampleFileResult(p: PackedSampleFileResult | SampleFileResult): SampleFileResult {
  const b = p.block as PackedSampleFileResult['block'];
  if (!(b.numbers instanceof Float64Array)) return p as SampleFileResult;
  const { numbers, strings, ...rest } = b;
  const n = numbers.length / 3;
  const parts = n ? strings.split(SEP) : [];
  const list = (i: number) => parts.slice(i * n, (i + 1) * n);
  return {
    ...p,
    block: {
      ...rest,
      docIds: Array.from(numbers.subarray(0, n)),
      values: Array.from(numbers.subarray(n, 2 * n)),
      lines: Array.from(numbers.subarray(2 * n)),
      questionIds: list(0),
      docHashes: list(1),
      promptHashes: list(2),
      targetHashes: list(3),
    },
  };
}
