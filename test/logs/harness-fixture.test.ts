import { appendFileSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeVfs } from '../../generator/core/kernel/node-vfs.js';
import type { Vfs } from '../../generator/core/kernel/vfs.js';
import { ingestLogs } from '../../generator/core/logs/index.js';
import { fixtures, hasPython, inCi } from '../helpers/env.js';
import { cellsOf, codes, copyTree, countCode, PYTHON_REFERENCE, rehashRun, runPython } from './helpers.js';

const OUT = fixtures('logs', 'harness-output', 'out');
const A_OLD = '2026-11-29T08-32-35.157224';
const A_NEW = '2026-11-29T08-33-36.738178';
const B_TS = '2026-11-29T08-32-45.130167';

const CHOICE = { aptd_mc: ['acc', 'none'], aptd_mc_x: ['acc', 'none'], aptd_gen: ['exact_match', 'strict-match'] };

describe('ingestLogs on the committed real harness output', () => {
  it('finds 3 models × 3 tasks, newest run per (model, task), default metrics recorded', async () => {
    const r = await ingestLogs(nodeVfs, [OUT]);
    expect(r.matrix.models.map((m) => m.name)).toEqual(['model-a', 'model-b', 'org/model-c:v1']);
    expect([...new Set(r.matrix.instances.map((i) => i.task))]).toEqual(['aptd_gen', 'aptd_mc', 'aptd_mc_x']);
    expect(r.matrix.instances.filter((i) => i.task === 'aptd_mc').map((i) => i.doc_id)).toEqual(['0', '1', '2', '3', '4', '5', '6', '7']);
    expect(r.matrix.instances.every((i) => /^[0-9a-f]{64}$/.test(i.doc_hash ?? ''))).toBe(true);
    expect(r.matrix.provenance.metricChoice).toEqual({
      aptd_gen: { metric: 'exact_match', filter: 'strict-match', reason: 'preferred' },
      aptd_mc: { metric: 'acc', filter: 'none', reason: 'preferred' },
      aptd_mc_x: { metric: 'acc', filter: 'none', reason: 'preferred' },
    });
    expect(r.matrix.instances.find((i) => i.task === 'aptd_gen')!.metric).toBe('exact_match,strict-match');
    expect(r.superseded).toEqual([
      { model: 'model-a', task: 'aptd_mc', kept: { ts: A_NEW, file: path.join(OUT, 'model-a', `samples_aptd_mc_${A_NEW}.jsonl`) }, dropped: { ts: A_OLD, file: path.join(OUT, 'model-a', `samples_aptd_mc_${A_OLD}.jsonl`) } },
    ]);
    expect(codes(r.findings).sort()).toEqual(['metric-filter-choice', 'run-superseded']);
    // --limit 5 run: 5 of 8 MC docs, and nothing at all for the task it did not run.
    expect(r.coverage.cells['org/model-c:v1']).toEqual({ aptd_gen: { observed: 5, expected: 5, ts: '2026-11-29T08-33-13.267193' }, aptd_mc: { observed: 5, expected: 5, ts: '2026-11-29T08-33-13.267193' } });
    expect(r.tally).toEqual({ read: 71, accepted: 54, rejected: 0, skipped: { 'other-filter': 17, 'superseded-samples-file': 1 } });
    // The gen task's strict-match exact_match is 1 exactly on the docs whose answer is "lol" (DummyLM's reply).
    expect(cellsOf(r.matrix)['model-b']).toMatchObject({ 'aptd_gen/0': 1, 'aptd_gen/1': 0, 'aptd_gen/2': 1, 'aptd_gen/3': 0, 'aptd_gen/4': 0, 'aptd_gen/5': 1 });
  });

  it.skipIf(!hasPython && !inCi)('every cell equals an independent json.loads reading of the same files', async () => {
    const r = await ingestLogs(nodeVfs, [OUT]);
    expect(cellsOf(r.matrix)).toEqual(runPython(PYTHON_REFERENCE, [OUT, JSON.stringify(CHOICE)]));
  });

  it('tail-only parsing and full JSON.parse agree', async () => {
    const fast = await ingestLogs(nodeVfs, [OUT]);
    const full = await ingestLogs(nodeVfs, [OUT], { fastPath: false });
    expect(cellsOf(fast.matrix)).toEqual(cellsOf(full.matrix));
    expect(fast.matrix.instances).toEqual(full.matrix.instances);
    expect(fast.findings).toEqual(full.findings);
  });

  it('--run pins an older run; --metric chooses metric and filter; both recorded', async () => {
    const r = await ingestLogs(nodeVfs, [OUT], {
      pins: { 'model-a': A_OLD },
      metrics: [{ task: 'aptd_mc*', metric: 'acc_norm' }, { task: 'aptd_gen', metric: 'exact_match', filter: 'upper' }],
    });
    expect(r.superseded.map((s) => [s.task, s.kept.ts, s.dropped.ts])).toEqual([['aptd_mc', A_OLD, A_NEW]]);
    expect(r.matrix.provenance.metricChoice).toMatchObject({ aptd_mc: { metric: 'acc_norm', reason: 'user' }, aptd_gen: { filter: 'upper', reason: 'user' } });
    expect(r.matrix.provenance.pins).toEqual({ 'model-a': A_OLD });
    // upper-cased "LOL" never equals the lower-case answer.
    expect(Object.entries(cellsOf(r.matrix)['model-a']!).filter(([k]) => k.startsWith('aptd_gen/')).every(([, v]) => v === 0)).toBe(true);
    const missing = await ingestLogs(nodeVfs, [OUT], { pins: { 'model-a': '2020-01-01T00-00-00' }, metrics: [{ task: 'aptd_gen', metric: 'bleu_nope' }] });
    expect(codes(missing.findings)).toEqual(expect.arrayContaining(['run-pin-missing', 'metric-not-found']));
    expect(missing.matrix.instances.some((i) => i.task === 'aptd_gen')).toBe(false);
  });

  it('the model mapping applies to model_name, the sanitised folder name, or the folder', async () => {
    const r = await ingestLogs(nodeVfs, [OUT], { mapping: { 'org__model-c__v1': 'Model C', 'model-b': 'Model B' } });
    expect(r.matrix.models.map((m) => m.name)).toEqual(['Model B', 'Model C', 'model-a']);
  });

  it('ingest is deterministic: same inputs, same matrix and provenance', async () => {
    const a = await ingestLogs(nodeVfs, [OUT]);
    const b = await ingestLogs(nodeVfs, [OUT]);
    expect(JSON.stringify({ ...a.matrix, values: [...a.matrix.values], observed: [...a.matrix.observed] })).toBe(
      JSON.stringify({ ...b.matrix, values: [...b.matrix.values], observed: [...b.matrix.observed] }),
    );
  });
});

describe('bad input is counted, located and never dropped silently', () => {
  const bFile = (root: string, task: string) => path.join(root, 'model-b', `samples_${task}_${B_TS}.jsonl`);

  it('a killed run: truncated last line → samples-truncated-line at its line, task_hash mismatch, the file is not merged', async () => {
    const root = copyTree(OUT);
    const file = bFile(root, 'aptd_mc');
    const text = readFileSync(file, 'utf8');
    const lines = text.split('\n').filter(Boolean);
    writeFileSync(file, `${lines.slice(0, 7).join('\n')}\n${lines[7]!.slice(0, 200)}`);
    const r = await ingestLogs(nodeVfs, [root]);
    const t = r.findings.find((f) => f.code === 'samples-truncated-line')!;
    expect(t.path).toEqual({ file, line: 8 });
    expect(codes(r.findings)).toEqual(expect.arrayContaining(['samples-count-mismatch', 'task-hash-mismatch']));
    // The cut line and the 7 whole ones: a file failing its task hash is not this run's file.
    expect(r.tally.rejected).toBe(8);
    expect(r.coverage.cells['model-b']!.aptd_mc).toMatchObject({ observed: 0, expected: 8 });
    expect(Object.keys(cellsOf(r.matrix)['model-b']!).filter((k) => k.startsWith('aptd_mc/'))).toEqual([]);
  });

  it('duplicate doc_id, NaN, a string score, a non-JSON line and bad UTF-8 are each located; the edited file is not merged', async () => {
    const root = copyTree(OUT);
    const file = bFile(root, 'aptd_mc_x');
    const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
    lines[1] = lines[1]!.replace(/"acc": [0-9.]+/, '"acc": NaN');
    lines[2] = lines[2]!.replace(/"acc": [0-9.]+/, '"acc": "1.0"');
    lines[3] = '{"doc_id": 3, oops';
    lines.push(lines[0]!); // doc 0 again
    writeFileSync(file, `${lines.join('\n')}\n`);
    appendFileSync(file, Buffer.from([0x7b, 0xff, 0xfe, 0x7d, 0x0a]));
    const r = await ingestLogs(nodeVfs, [root]);
    const at = (code: string) => r.findings.filter((f) => f.code === code && f.path.file === file).map((f) => f.path.line);
    expect(at('samples-bad-value')).toEqual([2, 3]);
    expect(r.findings.find((f) => f.code === 'samples-bad-value')!.args.value).toBe('NaN');
    expect(at('samples-bad-json')).toEqual([4]);
    expect(at('samples-duplicate-doc')).toEqual([9]);
    expect(at('samples-invalid-utf8')).toEqual([10]);
    // 5 bad lines, then the 5 good ones go with the file: its task hash no longer matches.
    expect(codes(r.findings)).toContain('task-hash-mismatch');
    expect(r.tally.rejected).toBe(10);
    expect(Object.keys(cellsOf(r.matrix)['model-b']!).filter((k) => k.startsWith('aptd_mc_x/'))).toEqual([]);
  });

  it('a samples file with no results file is an error, not silently ingested', async () => {
    const root = copyTree(OUT);
    rmSync(path.join(root, 'model-b', `results_${B_TS}.json`));
    const r = await ingestLogs(nodeVfs, [root]);
    expect(countCode(r.findings, 'samples-orphan')).toBe(3);
    expect(r.findings.find((f) => f.code === 'samples-orphan')!.severity).toBe('error');
    expect(r.matrix.models.map((m) => m.name)).toEqual(['model-a', 'org/model-c:v1']);
  });

  it('an unreadable results file and a task with no samples file are reported', async () => {
    const root = copyTree(OUT);
    writeFileSync(path.join(root, 'model-b', `results_${B_TS}.json`), '{"results": ');
    rmSync(path.join(root, 'org__model-c__v1', 'samples_aptd_gen_2026-11-29T08-33-13.267193.jsonl'));
    const r = await ingestLogs(nodeVfs, [root]);
    expect(r.findings.find((f) => f.code === 'results-unreadable')!.path.file).toBe(path.join(root, 'model-b', `results_${B_TS}.json`));
    expect(r.findings.find((f) => f.code === 'samples-missing')!.args).toMatchObject({ model: 'org/model-c:v1', task: 'aptd_gen' });
  });

  it('a model evaluated on different data or prompts is a finding and its cells are not merged', async () => {
    const root = copyTree(OUT);
    // model-b's doc 2 of aptd_mc: a different document; doc 3: a different prompt. The run is
    // re-hashed as the harness would have (a consistent run on other data, not an edit).
    const file = bFile(root, 'aptd_mc');
    const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
    const rec2 = JSON.parse(lines[2]!);
    rec2.doc.question = `${rec2.doc.question} (variant)`;
    lines[2] = JSON.stringify(rec2);
    const rec3 = JSON.parse(lines[3]!);
    rec3.arguments.gen_args_0.arg_0 = `Variant prompt: ${rec3.arguments.gen_args_0.arg_0}`;
    lines[3] = JSON.stringify(rec3);
    writeFileSync(file, `${lines.join('\n')}\n`);
    rehashRun(path.join(root, 'model-b', `results_${B_TS}.json`), file, 'aptd_mc');
    const r = await ingestLogs(nodeVfs, [root]);
    const data = r.findings.find((f) => f.code === 'instance-hash-conflict')!;
    expect(data.args).toMatchObject({ model: 'model-b', task: 'aptd_mc', count: 1, docId: '2', majority: 2 });
    expect(r.findings.find((f) => f.code === 'prompt-hash-conflict')!.args).toMatchObject({ model: 'model-b', docId: '3', field: 'prompt_hash' });
    expect(codes(r.findings)).not.toContain('task-hash-mismatch');
    expect(codes(r.findings)).not.toContain('samples-content-hash-mismatch');
    const b = cellsOf(r.matrix)['model-b']!;
    expect(b['aptd_mc/2']).toBeUndefined();
    expect(b['aptd_mc/3']).toBeUndefined();
    expect(b['aptd_mc/4']).toBeDefined();
  });

  it('timestamp-anchored matching: a task whose name extends another is never claimed by it', async () => {
    const root = copyTree(OUT);
    // Without aptd_mc's own file, a prefix glob would hand it samples_aptd_mc_x_*.
    rmSync(bFile(root, 'aptd_mc'));
    const r = await ingestLogs(nodeVfs, [root]);
    expect(r.coverage.cells['model-b']!.aptd_mc).toBeUndefined();
    expect(r.coverage.cells['model-b']!.aptd_mc_x).toMatchObject({ observed: 8 });
    expect(r.findings.find((f) => f.code === 'samples-missing')!.args).toMatchObject({ model: 'model-b', task: 'aptd_mc' });
  });

  it('nameless folders (files straight in the output path) and the ≤0.4.2 results.json + JSON-array samples', async () => {
    const root = copyTree(path.join(OUT, 'model-b'), 'flat');
    const r1 = await ingestLogs(nodeVfs, [root]);
    expect(r1.matrix.models.map((m) => m.name)).toEqual(['model-b']);
    expect(r1.coverage.tasks).toEqual(['aptd_gen', 'aptd_mc', 'aptd_mc_x']);

    // Rebuild model-b's run in the old layout: results.json (model_args as a string) and arrays named <model_args>_<task>.jsonl.
    const legacy = path.join(path.dirname(root), 'legacy');
    mkdirSync(legacy);
    const results = JSON.parse(readFileSync(path.join(root, `results_${B_TS}.json`), 'utf8'));
    for (const k of ['model_name', 'model_name_sanitized', 'lm_eval_version', 'task_hashes', 'date']) delete results[k];
    results.config.model_args = 'pretrained=org/model-b';
    writeFileSync(path.join(legacy, 'results.json'), JSON.stringify(results, null, 2));
    for (const task of ['aptd_mc', 'aptd_gen']) {
      const recs = readFileSync(path.join(root, `samples_${task}_${B_TS}.jsonl`), 'utf8').split('\n').filter(Boolean).map((l) => {
        const rec = JSON.parse(l);
        for (const k of ['filter', 'metrics', 'doc_hash', 'prompt_hash', 'target_hash']) delete rec[k];
        return rec;
      });
      writeFileSync(path.join(legacy, `pretrained__org__model-b_${task}.jsonl`), JSON.stringify(recs, null, 2));
    }
    const r2 = await ingestLogs(nodeVfs, [legacy]);
    expect(r2.matrix.models.map((m) => m.name)).toEqual(['org/model-b']);
    const cells = cellsOf(r2.matrix)['org/model-b']!;
    const modern = cellsOf(r1.matrix)['model-b']!;
    for (const key of Object.keys(cells)) expect(cells[key]).toBe(modern[key]);
    // Filters split by order (no "filter" field before 0.4.7): strict-match docs come first.
    expect(Object.keys(cells).filter((k) => k.startsWith('aptd_gen/'))).toHaveLength(6);
    expect(codes(r2.findings)).toEqual(expect.arrayContaining(['hashes-unavailable', 'samples-missing']));
  });

  it('mixed harness versions across models are reported', async () => {
    const root = copyTree(OUT);
    const file = path.join(root, 'model-b', `results_${B_TS}.json`);
    const json = JSON.parse(readFileSync(file, 'utf8'));
    json.lm_eval_version = '0.4.11';
    writeFileSync(file, JSON.stringify(json));
    const r = await ingestLogs(nodeVfs, [root]);
    expect(r.findings.find((f) => f.code === 'harness-version-mixed')!.args.versions).toBe('0.4.11 (model-b); 0.4.13 (model-a, org/model-c:v1)');
  });

  it('a samples file that cannot be read is a finding, the other files still count', async () => {
    const broken = path.join(OUT, 'model-b', `samples_aptd_mc_${B_TS}.jsonl`);
    const vfs: Vfs = {
      ...nodeVfs,
      readBytes: (p) => (p === broken ? Promise.reject(new Error('EIO: i/o error')) : nodeVfs.readBytes(p)),
      readChunks: (p, n) => nodeVfs.readChunks(p, n),
    };
    const r = await ingestLogs(vfs, [OUT]);
    expect(r.findings.find((f) => f.code === 'input-unreadable')).toMatchObject({ severity: 'error', path: { file: broken }, args: { reason: 'EIO: i/o error' } });
    expect(r.coverage.cells['model-b']!.aptd_mc).toMatchObject({ observed: 0 });
    expect(r.coverage.cells['model-b']!.aptd_mc_x).toMatchObject({ observed: 8 });
    expect(r.tally.rejected).toBe(1);
  });

  it('a missing root and a root with nothing in it are findings', async () => {
    const empty = copyTree(fixtures('logs', 'tasks', 'data'), 'nothing');
    renameSync(path.join(empty, 'mc.jsonl'), path.join(empty, 'notes.txt'));
    const r = await ingestLogs(nodeVfs, ['/definitely/not/here', empty]);
    expect(codes(r.findings)).toEqual(['input-missing', 'input-unrecognised']);
    expect(readdirSync(empty).sort()).toEqual(['gen.jsonl', 'notes.txt']);
  });
});
