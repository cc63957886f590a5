import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeVfs } from '../../generator/core/kernel/node-vfs.js';
import { inThreadSampleReader, packSampleFileResult, TripleReceiver, TripleSender, unpackSampleFileResult, type SampleFileResult } from '../../generator/core/logs/harness/sample-file.js';
import type { SampleReadOptions } from '../../generator/core/logs/harness/samples.js';
import { fixtures } from '../helpers/env.js';
import { tempDir } from '../helpers/tmp.js';

const SOURCE = fixtures('logs', 'harness-output', 'out', 'model-b', 'samples_aptd_mc_2026-11-29T08-32-45.130167.jsonl');
const OPTIONS: SampleReadOptions = { metric: 'acc', filter: 'none', filterOrder: ['none'], jsonArray: false, fractionMetric: true, recompute: { kind: 'mc-acc' } };

/** `text` with the character at `at` replaced: same length, so a line keeps its length and head. */
const swapAt = (text: string, at: number) => text.slice(0, at) + (text[at] === 'x' ? 'y' : 'x') + text.slice(at + 1);

describe('line prefix cache across models', () => {
  it("a later model's record with an edited doc or prompt (same length, same head) is still rejected", async () => {
    const dir = tempDir('aptpace-prefix-cache-');
    const lines = readFileSync(SOURCE, 'utf8').split('\n');
    const edited = [...lines];
    // Line 1: one character of the doc's question; line 2: one character of the hashed prompt.
    // Both lie past the line's first 64 bytes, which find the cache slot, and before "resps".
    const docAt = lines[0]!.indexOf('directory', lines[0]!.indexOf('"question"'));
    edited[0] = swapAt(lines[0]!, docAt + 3);
    const promptAt = lines[1]!.indexOf('Node packa', lines[1]!.indexOf('"arg_0"'));
    edited[1] = swapAt(lines[1]!, promptAt + 2);
    for (const k of [0, 1]) {
      expect(edited[k]!.length).toBe(lines[k]!.length);
      expect(edited[k]!.slice(0, 64)).toBe(lines[k]!.slice(0, 64));
      expect(docAt > 64 && promptAt > 64 && edited[k]!.indexOf('"resps"') > Math.max(docAt, promptAt)).toBe(true);
    }
    const first = path.join(dir, 'first.jsonl');
    const later = path.join(dir, 'later.jsonl');
    writeFileSync(first, lines.join('\n'));
    writeFileSync(later, edited.join('\n'));

    // One reader, one cache: the first model's file fills it with every line's prefix.
    const read = inThreadSampleReader(nodeVfs);
    const clean = await read(first, OPTIONS);
    expect(clean.findings).toEqual([]);
    const cached = await read(later, OPTIONS);
    const mismatches = cached.findings.filter((f) => f.code === 'samples-content-hash-mismatch');
    expect(mismatches.map((f) => [f.path.line, f.args.field])).toEqual([
      [1, 'doc_hash'],
      [2, 'prompt_hash'],
    ]);
    expect(cached.tally.rejected).toBe(2);
    // The same as a reader that never saw the first file.
    const alone = await inThreadSampleReader(nodeVfs)(later, OPTIONS);
    expect(cached).toEqual(alone);
  });
});

describe('hash triples crossing threads', () => {
  it('arrive as sent, each triple as text once per table, and a full table is emptied on both sides', async () => {
    const read = inThreadSampleReader(nodeVfs);
    // Two files of different docs: after the table is emptied, numbers point at other triples.
    const mc = await read(SOURCE, OPTIONS);
    const gen = fixtures('logs', 'harness-output', 'out', 'model-b', 'samples_aptd_gen_2026-11-29T08-32-45.130167.jsonl');
    const other = await read(gen, { ...OPTIONS, metric: 'exact_match', filter: 'strict-match', filterOrder: ['strict-match', 'upper'], recompute: undefined });
    expect(mc.block.docIds.length).toBeGreaterThan(2);
    expect(other.block.docIds.length).toBeGreaterThan(2);
    expect(other.block.docHashes[0]).not.toBe(mc.block.docHashes[0]);
    const trip = (results: SampleFileResult[], limit?: number) => {
      const sender = new TripleSender(limit);
      const receiver = new TripleReceiver();
      // Through a structured clone, as a worker's message is.
      const sent = results.map((r) => structuredClone(packSampleFileResult(structuredClone(r), sender)) as Parameters<typeof unpackSampleFileResult>[0]);
      sent.forEach((p, i) => expect(unpackSampleFileResult(p, receiver)).toEqual(results[i]));
      return sent.map((p) => [(p.block as { fresh: string[] }).fresh.length / 3, (p.block as { reset: boolean }).reset]);
    };
    const n = mc.block.docIds.length;
    const m = other.block.docIds.length;
    // New triples the first time only.
    expect(trip([mc, mc, other, mc])).toEqual([[n, false], [0, false], [m, false], [0, false]]);
    // A table that is full after one file is emptied, on both sides, before the next.
    expect(trip([mc, other, mc], n)).toEqual([[n, false], [m, true], [n, false]]);
  });
});
