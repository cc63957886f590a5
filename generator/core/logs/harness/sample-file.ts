import { emptyTally, type Finding, type Tally } from '../../kernel/findings.js';
import type { Vfs } from '../../kernel/vfs.js';
import { FindingSink } from '../sink.js';
import { LinePrefixCache } from './sample-line.js';
import { readSampleFile, type SampleBlock, type SampleReadOptions } from './samples.js';

/** One samples file read alone: its block, its own findings (folded per file) and tally. */
export interface SampleFileResult {
  block: SampleBlock;
  findings: Finding[];
  tally: Tally;
}

/** Reads one samples file; the default reads in this thread, a worker pool reads in others. */
export type SampleFileReader = (file: string, options: SampleReadOptions) => Promise<SampleFileResult>;

/** The in-thread reader over an injected Vfs; line prefixes repeated across files (one task's docs and prompts in every model's file) are computed once. */
export function inThreadSampleReader(vfs: Vfs): SampleFileReader {
  const cache = new LinePrefixCache();
  return async (file, options) => {
    const sink = new FindingSink();
    const tally = emptyTally();
    const block = await readSampleFile(vfs, file, options, sink, tally, options.fastPath === false ? undefined : cache);
    return { block, findings: sink.close(), tally };
  };
}
