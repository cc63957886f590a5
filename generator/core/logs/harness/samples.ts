import { createHash } from 'node:crypto';
import { countSkip, type Tally } from '../../kernel/findings.js';
import { Buffer, isUtf8 } from 'node:buffer';
import type { Vfs } from '../../kernel/vfs.js';
import type { FindingSink } from '../sink.js';
import { contentHashCheck, recomputeMetric, type MetricRecompute } from './record-check.js';
import { contentOf, NAN_SENTINEL, parseSampleBytes, type LineContent, type LinePrefixCache } from './sample-line.js';

export type { MetricRecompute } from './record-check.js';

export interface SampleReadOptions {
  metric: string;
  filter: string;
  /** Filter names in file order; used to split records when they carry no `filter` field (<0.4.7). */
  filterOrder: string[];
  /** Docs per filter for <0.4.7 multi-filter files (from `n-samples.effective`). */
  docsPerFilter?: number;
  /** ≤0.4.2: the file is one pretty-printed JSON array. */
  jsonArray: boolean;
  /** Parse only the top-level fields the reader needs (default true); false JSON.parses every line whole. */
  fastPath?: boolean;
  /** Per-sample values of this metric must lie in [0, 1] (acc, exact_match, …). */
  fractionMetric?: boolean;
  /** Recompute the metric from `filtered_resps` and `target` (built-in scoring only). */
  recompute?: MetricRecompute;
}

export interface SampleBlock {
  docIds: number[];
  /** Our question id (`doc.id`, a non-empty string) per accepted record, '' when the doc has none. */
  questionIds: string[];
  values: number[];
  lines: number[];
  /** `doc_hash`, `prompt_hash`, `target_hash` per accepted record ('' when absent). */
  docHashes: string[];
  promptHashes: string[];
  targetHashes: string[];
  /** sha256 over every record's doc_hash+prompt_hash+target_hash in file order: the harness's task_hash. */
  taskHash?: string;
  /** Records per filter (all filters). */
  perFilter: Record<string, number>;
  sum: number;
  /** Per metric named in the records' `metrics` list: sum and count over accepted records. */
  metricSums: Record<string, { sum: number; count: number }>;
  hasHashes: boolean;
}

/**
 * Reads one samples file for one chosen (metric, filter). Streams line by line; each line is
 * parsed by `parseSampleBytes` (top-level fields located in one scan, big ones never built, a
 * line prefix seen in another model's file served from `cache`), checked against its own
 * content (doc, prompt and target hashes, the metric recomputed where the harness's built-in
 * scoring applies) and every check that could not be made is counted. Every rejected line is
 * a finding with file:line.
 */
export async function readSampleFile(vfs: Vfs, file: string, options: SampleReadOptions, sink: FindingSink, tally: Tally, cache?: LinePrefixCache): Promise<SampleBlock> {
  const block: SampleBlock = { docIds: [], questionIds: [], values: [], lines: [], docHashes: [], promptHashes: [], targetHashes: [], perFilter: {}, sum: 0, metricSums: {}, hasHashes: false };
  const taskHash = createHash('sha256');
  // The task hash's input, fed to the hash in large pieces (one native call per record costs more than the hashing).
  let taskHashText = '';
  let hashedRecords = 0;
  const seen = new Map<number, number>();
  const fast = options.fastPath !== false;
  let recordIndex = 0;
  /** Checks that could not be made, by reason: each is said once per file (a finding, an error under --strict). */
  const unchecked = new Map<string, number>();
  const countGap = (reason: string) => unchecked.set(reason, (unchecked.get(reason) ?? 0) + 1);

  // Where a finding points: the line, or the record of a ≤0.4.2 array file (built only for a finding).
  const at = (line: number): { file: string; line?: number; record?: number } => (options.jsonArray ? { file, record: line } : { file, line });
  const accept = (rec: Record<string, unknown>, line: number, content: LineContent) => {
    const index = recordIndex++;
    const dh = rec.doc_hash;
    const ph = rec.prompt_hash;
    const th = rec.target_hash;
    if (typeof dh === 'string' && typeof ph === 'string' && typeof th === 'string') {
      taskHashText += dh + ph + th;
      // Flushed before a record boundary could join a lone high surrogate to the next record's
      // text: each record's text is UTF-8-encoded on its own, as when hashed one by one.
      const last = th.charCodeAt(th.length - 1);
      if (taskHashText.length > 1 << 20 || (last >= 0xd800 && last <= 0xdbff)) {
        taskHash.update(taskHashText);
        taskHashText = '';
      }
      hashedRecords++;
    }
    let filter = typeof rec.filter === 'string' ? rec.filter : undefined;
    if (filter === undefined) {
      if (options.filterOrder.length <= 1) filter = options.filterOrder[0] ?? 'none';
      else {
        const per = options.docsPerFilter;
        filter = per ? options.filterOrder[Math.floor(index / per)] ?? options.filterOrder[options.filterOrder.length - 1]! : options.filterOrder[0]!;
      }
    }
    block.perFilter[filter] = (block.perFilter[filter] ?? 0) + 1;
    const hashes = contentHashCheck(rec, content);
    const badHash = hashes.mismatch;
    for (const field of hashes.unchecked) countGap(`${field} (its content is not in the record)`);
    if (badHash) {
      // The stored hash no longer describes the record's own content: edited after the run.
      sink.add('samples-content-hash-mismatch', { ...at(line), field: badHash === 'doc_hash' ? 'doc' : badHash === 'prompt_hash' ? 'arguments' : 'target' }, { field: badHash });
      tally.rejected++;
      return;
    }
    if (filter !== options.filter) {
      countSkip(tally, 'other-filter');
      return;
    }
    const docId = rec.doc_id;
    if (typeof docId !== 'number' || !Number.isInteger(docId) || docId < 0) {
      sink.add('samples-bad-record', { ...at(line), field: 'doc_id' }, { reason: `doc_id ${JSON.stringify(docId)} is not a non-negative integer` });
      tally.rejected++;
      return;
    }
    if (!(options.metric in rec)) {
      sink.add('samples-missing-metric', { ...at(line), field: options.metric }, { metric: options.metric, docId });
      tally.rejected++;
      return;
    }
    const raw = rec[options.metric];
    const value = typeof raw === 'number' ? raw : typeof raw === 'boolean' ? (raw ? 1 : 0) : undefined;
    if (value === undefined || !Number.isFinite(value)) {
      sink.add('samples-bad-value', { ...at(line), field: options.metric }, { metric: options.metric, docId, value: typeof raw === 'string' && raw.startsWith(NAN_SENTINEL) ? raw.slice(NAN_SENTINEL.length) : raw });
      tally.rejected++;
      return;
    }
    if (options.fractionMetric && (value < 0 || value > 1)) {
      sink.add('samples-out-of-range', { ...at(line), field: options.metric }, { metric: options.metric, docId, value });
      tally.rejected++;
      return;
    }
    if (options.recompute) {
      const expected = recomputeMetric(rec, options.recompute);
      if (typeof expected !== 'number') {
        countGap(`${options.metric} not recomputed: ${expected.gap}`);
      } else if (expected !== value) {
        sink.add('samples-metric-mismatch', { ...at(line), field: options.metric }, { metric: options.metric, docId, value, expected });
        tally.rejected++;
        return;
      }
    }
    const prior = seen.get(docId);
    if (prior !== undefined) {
      sink.add('samples-duplicate-doc', { ...at(line), field: 'doc_id' }, { docId, firstLine: prior, filter });
      tally.rejected++;
      return;
    }
    seen.set(docId, line);
    block.docIds.push(docId);
    block.questionIds.push(content.questionId);
    block.values.push(value);
    block.lines.push(line);
    block.docHashes.push(typeof dh === 'string' ? dh : '');
    block.promptHashes.push(typeof ph === 'string' ? ph : '');
    block.targetHashes.push(typeof th === 'string' ? th : '');
    block.sum += value;
    // Every scalar metric of the record, for the cross-check against the results file's aggregates.
    for (const m of Array.isArray(rec.metrics) ? rec.metrics : []) {
      const v = rec[m as string];
      const x = typeof v === 'number' ? v : typeof v === 'boolean' ? Number(v) : undefined;
      if (x === undefined || !Number.isFinite(x)) continue;
      const acc = (block.metricSums[m as string] ??= { sum: 0, count: 0 });
      acc.sum += x;
      acc.count++;
    }
    tally.accepted++;
  };

  if (options.jsonArray) {
    let records: unknown;
    let text: string;
    try {
      text = await vfs.readText(file);
    } catch (err) {
      sink.add('input-unreadable', { file }, { reason: (err as Error).message });
      tally.rejected++;
      return block;
    }
    try {
      records = JSON.parse(text);
    } catch (err) {
      sink.add('samples-bad-json', { file }, { reason: (err as Error).message });
      tally.rejected++;
      return block;
    }
    if (!Array.isArray(records)) {
      sink.add('samples-bad-json', { file }, { reason: 'expected a JSON array of sample records (≤0.4.2 format)' });
      tally.rejected++;
      return block;
    }
    const per = options.filterOrder.length > 1 ? records.length / options.filterOrder.length : undefined;
    options = { ...options, docsPerFilter: options.docsPerFilter ?? (per && Number.isInteger(per) ? per : undefined) };
    records.forEach((rec, i) => {
      tally.read++;
      if (!rec || typeof rec !== 'object' || Array.isArray(rec)) {
        sink.add('samples-bad-record', { file, record: i }, { reason: 'not a JSON object' });
        tally.rejected++;
        return;
      }
      accept(rec as Record<string, unknown>, i, contentOf(rec as Record<string, unknown>, undefined));
    });
  } else {
    const handle = (buf: Buffer, from: number, to: number, line: number, terminated: boolean, valid: boolean) => {
      let end = to;
      if (end > from && buf[end - 1] === 0x0d) end--;
      if (line === 1 && end - from >= 3 && buf[from] === 0xef && buf[from + 1] === 0xbb && buf[from + 2] === 0xbf) from += 3;
      if (isBlank(buf, from, end)) {
        countSkip(tally, 'blank-line');
        return;
      }
      tally.read++;
      if (!valid && !isUtf8(buf.subarray(from, end))) {
        tally.rejected++;
        sink.add('samples-invalid-utf8', { file, line });
        return;
      }
      const parsed = parseSampleBytes(buf, from, end, fast, cache);
      if (!parsed) {
        if (!terminated) sink.add('samples-truncated-line', { file, line }, { bytes: end - from });
        else sink.add('samples-bad-json', { file, line }, { reason: 'not a JSON object' });
        tally.rejected++;
        return;
      }
      accept(parsed.rec, line, parsed.content);
    };
    try {
      await forEachLine(vfs, file, handle);
      if (tally.read === 0) {
        // An empty samples file is a run cut off before its first record: the same class as a cut-off line.
        sink.add('samples-empty', { file });
        // Counted as one input read and rejected: a tally never rejects more than it read.
        tally.read++;
        tally.rejected++;
      }
    } catch (err) {
      // Lines already handled stay counted; the unread rest is one rejected input.
      sink.add('input-unreadable', { file }, { reason: (err as Error).message });
      tally.read++;
      tally.rejected++;
    }
  }
  if (unchecked.size)
    sink.add('samples-check-skipped', { file }, {
      count: [...unchecked.values()].reduce((a, b) => a + b, 0),
      reasons: [...unchecked.entries()].map(([r, n]) => `${r} ×${n}`).join('; '),
    });
  if (hashedRecords > 0) {
    block.hasHashes = true;
    block.taskHash = taskHash.update(taskHashText).digest('hex');
  }
  return block;
}

const WHOLE_FILE_LIMIT = 32 << 20;

/**
 * Calls `handle` once per line, synchronously within each chunk (no per-line promise);
 * only a line that straddles two chunks is copied. Memory is bounded by chunk + longest line.
 */
async function forEachLine(
  vfs: Vfs,
  file: string,
  handle: (buf: Buffer, from: number, to: number, line: number, terminated: boolean, valid: boolean) => void,
): Promise<void> {
  let carry: Buffer | undefined;
  let line = 0;
  // Typical sample files are a few MB: one exact-size read beats a stream's fixed-size
  // buffers (less garbage); big files are streamed so memory stays bounded.
  const size = (await vfs.stat(file))?.size ?? Infinity;
  const chunks: AsyncIterable<Uint8Array> | Uint8Array[] = size <= WHOLE_FILE_LIMIT ? [await vfs.readBytes(file)] : vfs.readChunks(file);
  for await (const raw of chunks) {
    const chunk = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
    // One check of the whole chunk: when it is valid UTF-8, so is every line inside it (lines
    // split at an ASCII byte), and no line needs its own; a line joined across chunks is checked alone.
    const valid = isUtf8(chunk);
    let start = 0;
    if (carry) {
      const nl = chunk.indexOf(0x0a);
      if (nl < 0) {
        carry = Buffer.concat([carry, chunk]);
        continue;
      }
      const joined = Buffer.concat([carry, chunk.subarray(0, nl)]);
      carry = undefined;
      handle(joined, 0, joined.length, ++line, true, false);
      start = nl + 1;
    }
    for (let nl = chunk.indexOf(0x0a, start); nl !== -1; nl = chunk.indexOf(0x0a, start)) {
      handle(chunk, start, nl, ++line, true, valid);
      start = nl + 1;
    }
    // Copy: the stream may reuse its buffer for the next chunk.
    if (start < chunk.length) carry = Buffer.from(chunk.subarray(start));
  }
  if (carry && carry.length) handle(carry, 0, carry.length, ++line, false, false);
}

function isBlank(buf: Buffer, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = buf[i]!;
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d) return false;
  }
  return true;
}
