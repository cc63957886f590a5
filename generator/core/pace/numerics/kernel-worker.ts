/**
 * Worker-thread entry for the split kernels (kernel-thread.ts): takes chunks of each job from the
 * counter it shares with the caller, running the same chunk functions the caller runs, on the
 * same shared arrays.
 */
import { serveJobs } from '../../kernel/job-thread.js';
import { mulLeftTChunk, mulRightChunk, type ProductArgs } from './products.js';
import { binaryMasksChunk, columnMasksChunk, mulLeftTBitsChunk, mulRightBitsChunk, type BitProductArgs, type MaskArgs } from './binary-products.js';
import { binarySumsChunk, rankedColumnsChunk, type BinarySumsArgs, type RankedColumnsArgs } from './column-spearman.js';
import { takeChunks, type KernelJob, type KernelKind } from './kernel-thread.js';

const chunkRunners: Record<KernelKind, (args: never) => (chunk: number) => void> = {
  mulRight: (args: ProductArgs) => mulRightChunk(args),
  mulLeftT: (args: ProductArgs) => mulLeftTChunk(args),
  binaryMasks: (args: MaskArgs) => binaryMasksChunk(args),
  columnMasks: (args: MaskArgs) => columnMasksChunk(args),
  mulRightBits: (args: BitProductArgs) => mulRightBitsChunk(args),
  mulLeftTBits: (args: BitProductArgs) => mulLeftTBitsChunk(args),
  binarySums: (args: BinarySumsArgs) => binarySumsChunk(args),
  rankedColumns: (args: RankedColumnsArgs) => rankedColumnsChunk(args),
};

serveJobs<KernelJob, true>((job) => {
  takeChunks(job.control, job.chunks, chunkRunners[job.kind](job.args as never));
  return true;
});
