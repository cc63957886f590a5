import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LinePrefixCache, parseSampleLine } from '../../generator/core/logs/harness/sample-line.js';
import { fixtures, repoRoot } from '../helpers/env.js';
import { codes } from './helpers.js';

const OUT = fixtures('logs', 'harness-output', 'out');

describe('samples files read on worker threads', () => {
  it('give the same matrix, findings, tally and coverage as the in-thread reader, also on edited files', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'aptpace-pool-'));
    try {
      const root = path.join(dir, 'out');
      cpSync(OUT, root, { recursive: true });
      // One record's target edited after the run: both readers must reject it the same way.
      const file = path.join(root, 'model-b', 'samples_aptd_mc_2026-11-29T08-32-45.130167.jsonl');
      const lines = readFileSync(file, 'utf8').split('\n');
      lines[1] = lines[1]!.replace(/"target": "(\d)"/, (_, d: string) => `"target": "${(Number(d) + 1) % 4}"`);
      writeFileSync(file, lines.join('\n'));
      const res = spawnSync(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'test', 'logs', 'sample-pool-run.ts'), root], { cwd: repoRoot, encoding: 'utf8', maxBuffer: 1 << 26 });
      expect(res.stderr).toBe('');
      const { onWorkers, pooled, inThread } = JSON.parse(res.stdout);
      expect(onWorkers).toBe(8);
      expect(codes(pooled.findings)).toContain('samples-content-hash-mismatch');
      expect(pooled).toEqual(inThread);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('line prefix cache', () => {
  const line = readFileSync(path.join(OUT, 'model-b', 'samples_aptd_mc_2026-11-29T08-32-45.130167.jsonl'), 'utf8').split('\n')[0]!;

  it('a hit gives what a full scan gives', () => {
    const cache = new LinePrefixCache();
    const first = parseSampleLine(line, true, cache)!;
    const hit = parseSampleLine(line, true, cache)!;
    const plain = parseSampleLine(line, true)!;
    expect(hit.content).toEqual(plain.content);
    for (const key of ['doc_id', 'target', 'doc_hash', 'prompt_hash', 'target_hash', 'acc', 'filter']) expect(hit.rec[key]).toEqual(plain.rec[key]);
    expect(first.content).toEqual(plain.content);
  });

  it('an edited doc misses the cache and its own hash is computed', () => {
    const cache = new LinePrefixCache();
    parseSampleLine(line, true, cache);
    const edited = line.replace('"doc": {', '"doc": {"x": 1, ');
    expect(parseSampleLine(edited, true, cache)!.content.docHash).toBe(parseSampleLine(edited, true)!.content.docHash);
    expect(parseSampleLine(edited, true, cache)!.content.docHash).not.toBe(parseSampleLine(line, true)!.content.docHash);
  });

  it('a tail that repeats a prefix field is scanned whole, not served from the cache', () => {
    const cache = new LinePrefixCache();
    parseSampleLine(line, true, cache);
    const repeated = line.replace(/}\s*$/, ', "target": "9"}');
    const hit = parseSampleLine(repeated, true, cache)!;
    expect(hit.rec.target).toBe('9');
    expect(hit.content).toEqual(parseSampleLine(repeated, true)!.content);
  });
});
