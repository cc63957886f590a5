import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeVfs } from '../../generator/core/kernel/node-vfs.js';
import { harnessDocHash } from '../../generator/core/logs/harness/json-text.js';
import { ingestLogs } from '../../generator/core/logs/index.js';
import { fixtures, hasPython, inCi } from '../helpers/env.js';
import { cellsOf, codes, copyTree, countCode, rehashRun, runPython } from './helpers.js';

/** Wrong data that used to be accepted with exit 0 (issue 12): each is now an error finding and kept out of the store. */
const OUT = fixtures('logs', 'harness-output', 'out');
const A_OLD = '2026-11-29T08-32-35.157224';
const B_TS = '2026-11-29T08-32-45.130167';
const C_TS = '2026-11-29T08-33-13.267193';
const bFile = (root: string, task: string) => path.join(root, 'model-b', `samples_${task}_${B_TS}.jsonl`);
const readLines = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean);
const writeLines = (file: string, lines: string[]) => writeFileSync(file, `${lines.join('\n')}\n`);
const errors = (r: { findings: Array<{ severity: string; code: string }> }) => r.findings.filter((f) => f.severity === 'error').map((f) => f.code);

describe('records are checked against their own content (lm-eval 0.4.13 hashing)', () => {
  it.skipIf(!hasPython && !inCi)('our doc_hash equals Python json.dumps(doc, indent=2, ensure_ascii=False) on awkward docs', () => {
    const docs = ['{"b": 1.0, "1": [], "a": {}, "é": "ünï \\"q\\" \\n", "n": -0.0, "e": 1e-05, "big": 12345678901234567890}', '{"x": [1, [2, {"y": null}]], "t": true}'];
    const expected = runPython(
      `import json, sys, hashlib
print(json.dumps([hashlib.sha256(json.dumps(json.loads(d), indent=2, ensure_ascii=False).encode()).hexdigest() for d in json.loads(sys.argv[1])]))`,
      [JSON.stringify(docs)],
    );
    expect(docs.map(harnessDocHash)).toEqual(expected);
  });

  it('edited doc text, prompt or target: that record is rejected at its line (the stored hashes no longer match)', async () => {
    const root = copyTree(OUT);
    const file = bFile(root, 'aptd_mc');
    const lines = readLines(file);
    lines[1] = lines[1]!.replace('"question": "', '"question": "EDITED ');
    lines[2] = lines[2]!.replace('"arg_0": "Question: ', '"arg_0": "Q: ');
    lines[4] = lines[4]!.replace(/"target": "\d"/, '"target": "3"');
    writeLines(file, lines);
    const r = await ingestLogs(nodeVfs, [root]);
    const found = r.findings.filter((f) => f.code === 'samples-content-hash-mismatch');
    expect(found.map((f) => [f.path.line, f.path.field, f.args.field])).toEqual([
      [2, 'doc', 'doc_hash'],
      [3, 'arguments', 'prompt_hash'],
      [5, 'target', 'target_hash'],
    ]);
    const b = cellsOf(r.matrix)['model-b']!;
    expect(['aptd_mc/1', 'aptd_mc/2', 'aptd_mc/4'].map((k) => b[k])).toEqual([undefined, undefined, undefined]);
    expect(b['aptd_mc/0']).toBeDefined();
  });

  it('an edited score is rejected: recomputed from filtered_resps and target (multiple-choice acc, exact_match)', async () => {
    const root = copyTree(OUT);
    const mc = bFile(root, 'aptd_mc');
    const lines = readLines(mc);
    const k = lines.findIndex((l) => /"acc": 0\.0/.test(l));
    lines[k] = lines[k]!.replace('"acc": 0.0', '"acc": 1.0');
    writeLines(mc, lines);
    const gen = bFile(root, 'aptd_gen');
    const g = readLines(gen);
    const j = g.findIndex((l) => /"filter": "strict-match"/.test(l) && /"exact_match": 0\.0/.test(l));
    g[j] = g[j]!.replace('"exact_match": 0.0', '"exact_match": 1.0');
    writeLines(gen, g);
    const r = await ingestLogs(nodeVfs, [root]);
    const mm = r.findings.filter((f) => f.code === 'samples-metric-mismatch');
    expect(mm.map((f) => [path.basename(f.path.file!), f.path.line, f.args.value, f.args.expected])).toEqual([
      [path.basename(gen), j + 1, 1, 0],
      [path.basename(mc), k + 1, 1, 0],
    ]);
  });

  it('a samples file swapped in from another model\'s run is an error and not merged', async () => {
    const root = copyTree(OUT);
    // model-a's samples under model-b's run: same docs and prompts, so every hash matches.
    // aptd_mc: acc differs (0.25 vs 0.5); aptd_mc_x: acc is equal (0.25) and only acc_norm tells.
    for (const task of ['aptd_mc', 'aptd_mc_x']) cpSync(path.join(root, 'model-a', `samples_${task}_${A_OLD}.jsonl`), bFile(root, task));
    const r = await ingestLogs(nodeVfs, [root]);
    const mismatch = r.findings.filter((f) => f.code === 'aggregate-mismatch');
    expect(mismatch.map((f) => [path.basename(f.path.file!), f.args.metric, f.severity])).toEqual([
      [path.basename(bFile(root, 'aptd_mc')), 'acc', 'error'],
      [path.basename(bFile(root, 'aptd_mc')), 'acc_norm', 'error'],
      [path.basename(bFile(root, 'aptd_mc_x')), 'acc_norm', 'error'],
    ]);
    expect(Object.keys(cellsOf(r.matrix)['model-b']!).filter((key) => key.startsWith('aptd_mc'))).toEqual([]);
    expect(r.tally.rejected).toBe(16);
  });

  it('out-of-range and non-finite scores are rejected with file, line and field; Infinity is named as such', async () => {
    const root = copyTree(OUT);
    const file = bFile(root, 'aptd_mc_x');
    const lines = readLines(file);
    const put = (i: number, v: string) => (lines[i] = lines[i]!.replace(/"acc": [0-9.]+/, `"acc": ${v}`));
    put(0, '-1');
    put(1, '2');
    put(2, '1e308');
    put(3, 'NaN');
    put(4, 'Infinity');
    writeLines(file, lines);
    const r = await ingestLogs(nodeVfs, [root]);
    const at = (code: string) => r.findings.filter((f) => f.code === code && f.path.file === file).map((f) => [f.path.line, f.path.field, f.args.value]);
    expect(at('samples-out-of-range')).toEqual([
      [1, 'acc', -1],
      [2, 'acc', 2],
      [3, 'acc', 1e308],
    ]);
    expect(at('samples-bad-value')).toEqual([
      [4, 'acc', 'NaN'],
      [5, 'acc', 'Infinity'],
    ]);
  });

  it('an empty samples file is an error like a cut-off one; a missing one too', async () => {
    const root = copyTree(OUT);
    writeFileSync(bFile(root, 'aptd_mc_x'), '');
    rmSync(bFile(root, 'aptd_gen'));
    const r = await ingestLogs(nodeVfs, [root]);
    expect(r.findings.find((f) => f.code === 'samples-empty')!).toMatchObject({ severity: 'error', path: { file: bFile(root, 'aptd_mc_x') } });
    expect(r.findings.find((f) => f.code === 'samples-missing')!.severity).toBe('error');
    expect(r.tally.rejected).toBe(2);
  });
});

describe('which run is used', () => {
  /** A second run of model-b with model-b's timestamp: model-a's aptd_mc run re-labelled (a consistent, different run). */
  function sameStampOtherContent(root: string): string {
    const dir = path.join(root, 'model-b-rerun');
    mkdirSync(dir);
    const bRes = JSON.parse(readFileSync(path.join(root, 'model-b', `results_${B_TS}.json`), 'utf8'));
    const aRes = JSON.parse(readFileSync(path.join(root, 'model-a', `results_${A_OLD}.json`), 'utf8'));
    bRes.results = { aptd_mc: aRes.results.aptd_mc };
    bRes.task_hashes = { aptd_mc: aRes.task_hashes.aptd_mc };
    writeFileSync(path.join(dir, `results_${B_TS}.json`), JSON.stringify(bRes));
    cpSync(path.join(root, 'model-a', `samples_aptd_mc_${A_OLD}.jsonl`), path.join(dir, `samples_aptd_mc_${B_TS}.jsonl`));
    return dir;
  }

  it('two runs of one model with one timestamp and different content: an error, neither used, unless pinned', async () => {
    const root = copyTree(OUT);
    const dir = sameStampOtherContent(root);
    const r = await ingestLogs(nodeVfs, [root]);
    expect(r.findings.find((f) => f.code === 'run-conflict')!).toMatchObject({ severity: 'error', args: { model: 'model-b', task: 'aptd_mc' } });
    expect(Object.keys(cellsOf(r.matrix)['model-b']!).filter((k) => k.startsWith('aptd_mc/'))).toEqual([]);
    const pinned = await ingestLogs(nodeVfs, [root], { pins: { 'model-b': dir } });
    expect(codes(pinned.findings)).not.toContain('run-conflict');
    const a = cellsOf(pinned.matrix)['model-a']!;
    const b = cellsOf(pinned.matrix)['model-b']!;
    // model-b now holds model-a's old run (the pinned folder's content).
    const aOld = await ingestLogs(nodeVfs, [path.join(root, 'model-a')], { pins: { 'model-a': A_OLD } });
    expect(Object.fromEntries(Object.entries(b).filter(([k]) => k.startsWith('aptd_mc/')))).toEqual(
      Object.fromEntries(Object.entries(cellsOf(aOld.matrix)['model-a']!).filter(([k]) => k.startsWith('aptd_mc/'))),
    );
    expect(a).toBeDefined();
  });

  it('an identical copy of a run is used once, with no error', async () => {
    const root = copyTree(OUT);
    cpSync(path.join(root, 'model-b'), path.join(root, 'model-b-copy'), { recursive: true });
    const r = await ingestLogs(nodeVfs, [root]);
    expect(errors(r)).toEqual([]);
    expect(countCode(r.findings, 'run-duplicate')).toBe(3);
    expect(cellsOf(r.matrix)['model-b']).toEqual(cellsOf((await ingestLogs(nodeVfs, [OUT])).matrix)['model-b']);
  });

  it.skipIf(!hasPython && !inCi)('an instance-hash tie between a complete and a partial (--limit) run keeps the complete run\'s record', async () => {
    const root = copyTree(OUT);
    const cFile = path.join(root, 'org__model-c__v1', `samples_aptd_mc_${C_TS}.jsonl`);
    const lines = readLines(cFile);
    const rec = JSON.parse(lines[0]!);
    const aRec = JSON.parse(readLines(path.join(root, 'model-a', `samples_aptd_mc_2026-11-29T08-33-36.738178.jsonl`))[0]!);
    // A variant of doc 0 whose hash sorts before model-a's, so "smaller triple wins" would pick the partial run.
    let n = 0;
    // Compact JS JSON is fine here: the re-indent ignores whitespace between tokens.
    const docText = (q: string) => JSON.stringify({ ...rec.doc, question: q });
    while (harnessDocHash(docText(`${rec.doc.question} v${n}`)) >= aRec.doc_hash) n++;
    rec.doc.question = `${rec.doc.question} v${n}`;
    lines[0] = JSON.stringify(rec);
    writeLines(cFile, lines);
    rehashRun(path.join(root, 'org__model-c__v1', `results_${C_TS}.json`), cFile, 'aptd_mc');
    const r = await ingestLogs(nodeVfs, [path.join(root, 'model-a'), path.join(root, 'org__model-c__v1')]);
    expect(r.findings.find((f) => f.code === 'instance-hash-conflict')!.args).toMatchObject({ model: 'org/model-c:v1', docId: '0' });
    expect(cellsOf(r.matrix)['model-a']!['aptd_mc/0']).toBeDefined();
    expect(cellsOf(r.matrix)['org/model-c:v1']!['aptd_mc/0']).toBeUndefined();
    expect(r.matrix.instances.find((i) => i.key === 'aptd_mc/0')!.doc_hash).toBe(aRec.doc_hash);
  });

  it('a newer partial run does not replace a complete one', async () => {
    const root = copyTree(OUT);
    // model-c's partial (--limit 5) run relabelled as model-a, newer than both of model-a's runs.
    const dir = path.join(root, 'model-a-quick');
    mkdirSync(dir);
    const ts = '2026-11-30T00-00-00.000000';
    const res = JSON.parse(readFileSync(path.join(root, 'org__model-c__v1', `results_${C_TS}.json`), 'utf8'));
    res.model_name = 'model-a';
    writeFileSync(path.join(dir, `results_${ts}.json`), JSON.stringify(res));
    for (const f of readdirSync(path.join(root, 'org__model-c__v1'))) {
      if (f.startsWith('samples_')) cpSync(path.join(root, 'org__model-c__v1', f), path.join(dir, f.replace(C_TS, ts)));
    }
    const r = await ingestLogs(nodeVfs, [root]);
    expect(r.coverage.cells['model-a']!.aptd_mc!.observed).toBe(8);
    expect(r.superseded.some((s) => s.model === 'model-a' && s.dropped.ts === ts)).toBe(true);
  });

  it('metric-not-found names a run that lacks the metric and lists what the runs do report (never "none" when they report it)', async () => {
    const root = copyTree(OUT);
    const cRes = path.join(root, 'org__model-c__v1', `results_${C_TS}.json`);
    const json = JSON.parse(readFileSync(cRes, 'utf8'));
    delete json.results.aptd_mc['acc_norm,none'];
    delete json.results.aptd_mc['acc_norm_stderr,none'];
    writeFileSync(cRes, JSON.stringify(json));
    const r = await ingestLogs(nodeVfs, [root], { metrics: [{ task: 'aptd_mc', metric: 'acc_norm' }] });
    const f = r.findings.find((x) => x.code === 'metric-not-found')!;
    expect(f.path.file).toBe(cRes);
    expect(f.args).toMatchObject({ task: 'aptd_mc', lacking: 1, runs: 3, shared: 'acc,none' });
    expect(String(f.args.available).split(' ')).toEqual(['acc,none', 'acc_norm,none']);
  });
});
