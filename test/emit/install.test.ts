import { describe, expect, it, beforeAll } from 'vitest';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import * as path from 'node:path';
import { nodeVfs } from '../../generator/core/kernel/node-vfs.js';
import { emitSuite, installIntoHarness } from '../../generator/core/emit/suite.js';
import type { Question } from '../../generator/core/questions/types.js';
import { tempDir } from '../helpers/tmp.js';
import { fixtureQuestions, mcq } from './support.js';

const root = tempDir('aptpace-emit-install-');
let dirCount = 0;
const fresh = () => {
  const d = path.join(root, `case${++dirCount}`);
  mkdirSync(d);
  return d;
};
const sha = (p: string) => createHash('sha256').update(readFileSync(p)).digest('hex');
const codes = (r: { findings: { code: string }[] }) => r.findings.map((f) => f.code);
const errors = (r: { findings: { code: string; severity: string }[] }) => r.findings.filter((f) => f.severity === 'error').map((f) => f.code);

function listTree(dir: string, rel = ''): string[] {
  const out: string[] = [];
  for (const e of readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    const child = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(`${child}/`, ...listTree(dir, child));
    else out.push(child);
  }
  return out.sort();
}

let questions: Question[];
beforeAll(async () => {
  questions = await fixtureQuestions();
});

describe('emitSuite writes a suite folder', () => {
  it('writes every file with a manifest of sizes and sha256, and leaves no staging folder', async () => {
    const parent = fresh();
    const out = path.join(parent, 'suite');
    const r = await emitSuite(nodeVfs, questions, { suite: 'aptpace_t1', outDir: out, fewshot: 'split' });
    expect(errors(r)).toEqual([]);
    expect(readdirSync(parent)).toEqual(['suite']);
    const manifest = JSON.parse(readFileSync(path.join(out, 'aptpace-manifest.json'), 'utf8'));
    expect(manifest.suite).toBe('aptpace_t1');
    expect(manifest.tasks).toEqual(r.tasks.map((t) => t.task));
    for (const f of manifest.files) {
      expect(sha(path.join(out, f.path))).toBe(f.sha256);
      expect(readFileSync(path.join(out, f.path)).length).toBe(f.bytes);
    }
    expect(r.files.map((f) => f.path)).toEqual([...manifest.files.map((f: { path: string }) => f.path), 'aptpace-manifest.json'].sort());
    expect(listTree(out).filter((p) => !p.endsWith('/'))).toEqual(r.files.map((f) => f.path));
    expect(r.lmEvalCommand).toBe(
      `HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 lm_eval --model hf --model_args "pretrained=$MODEL" --include_path ${out} --tasks aptpace_t1 --log_samples --output_path runs/aptpace_t1`,
    );
  });

  it('re-emits over its own unchanged files, drops files it no longer produces, and is byte-identical', async () => {
    const out = path.join(fresh(), 'suite');
    const first = await emitSuite(nodeVfs, questions, { suite: 'aptpace_t2', outDir: out, fewshot: 'split' });
    const again = await emitSuite(nodeVfs, questions, { suite: 'aptpace_t2', outDir: out, fewshot: 'split' });
    expect(errors(again)).toEqual([]);
    expect(again.files).toEqual(first.files);
    const fewer = await emitSuite(nodeVfs, questions.filter((q) => q.task === 'aptpace_swe_plan_mcq'), { suite: 'aptpace_t2', outDir: out });
    expect(errors(fewer)).toEqual([]);
    expect(existsSync(path.join(out, 'aptpace_dr_answer.yaml'))).toBe(false);
    expect(existsSync(path.join(out, 'data', 'aptpace_swe_plan_mcq.fewshot.jsonl'))).toBe(false);
    expect(listTree(out).filter((p) => !p.endsWith('/'))).toEqual(fewer.files.map((f) => f.path));
  });

  it('refuses to overwrite a file the user changed, and overwrites it with force', async () => {
    const out = path.join(fresh(), 'suite');
    await emitSuite(nodeVfs, questions, { suite: 'aptpace_t3', outDir: out });
    const edited = path.join(out, 'aptpace_swe_plan_mcq.yaml');
    writeFileSync(edited, 'task: "mine"\n');
    const refused = await emitSuite(nodeVfs, questions, { suite: 'aptpace_t3', outDir: out });
    expect(errors(refused)).toEqual(['emit-target-not-owned']);
    expect(refused.findings[refused.findings.length - 1]!.args.reason).toBe('modified');
    expect(refused.files).toEqual([]);
    expect(readFileSync(edited, 'utf8')).toBe('task: "mine"\n');
    const forced = await emitSuite(nodeVfs, questions, { suite: 'aptpace_t3', outDir: out, force: true });
    expect(errors(forced)).toEqual([]);
    expect(readFileSync(edited, 'utf8')).toContain('task: "aptpace_swe_plan_mcq"');
  });

  it('refuses a folder holding files it did not write; with force replaces clashes and keeps the rest', async () => {
    const out = path.join(fresh(), 'suite');
    mkdirSync(out);
    writeFileSync(path.join(out, 'utils.py'), '# the user\'s own helpers\n');
    writeFileSync(path.join(out, 'notes.txt'), 'keep me\n');
    const refused = await emitSuite(nodeVfs, questions, { suite: 'aptpace_t4', outDir: out });
    expect(errors(refused)).toEqual(['emit-target-not-empty']);
    expect(listTree(out)).toEqual(['notes.txt', 'utils.py']);
    const forced = await emitSuite(nodeVfs, questions, { suite: 'aptpace_t4', outDir: out, force: true });
    expect(errors(forced)).toEqual([]);
    expect(codes(forced)).toContain('emit-foreign-file-kept');
    expect(readFileSync(path.join(out, 'notes.txt'), 'utf8')).toBe('keep me\n');
    expect(readFileSync(path.join(out, 'utils.py'), 'utf8')).toContain('def load(');
    const manifest = JSON.parse(readFileSync(path.join(out, 'aptpace-manifest.json'), 'utf8'));
    expect(manifest.files.map((f: { path: string }) => f.path)).not.toContain('notes.txt');
  });

  it('reports an unwritable target and writes nothing', async () => {
    const parent = fresh();
    writeFileSync(path.join(parent, 'a-file'), 'x');
    const r = await emitSuite(nodeVfs, questions, { suite: 'aptpace_t5', outDir: path.join(parent, 'a-file', 'suite') });
    expect(errors(r)).toEqual(['emit-target-unwritable']);
    expect(r.files).toEqual([]);
    expect(readdirSync(parent)).toEqual(['a-file']);
    const notDir = await emitSuite(nodeVfs, questions, { suite: 'aptpace_t5', outDir: path.join(parent, 'a-file') });
    expect(errors(notDir)).toEqual(['emit-target-not-directory']);
  });

  it('leaves an existing suite untouched when the new questions are invalid', async () => {
    const out = path.join(fresh(), 'suite');
    await emitSuite(nodeVfs, questions, { suite: 'aptpace_t6', outDir: out });
    const before = listTree(out).map((p) => (p.endsWith('/') ? p : `${p}:${sha(path.join(out, p))}`));
    const r = await emitSuite(nodeVfs, [mcq({ choices: ['only'] })], { suite: 'aptpace_t6', outDir: out });
    expect(errors(r)).toEqual(['emit-mcq-too-few-choices']);
    expect(listTree(out).map((p) => (p.endsWith('/') ? p : `${p}:${sha(path.join(out, p))}`))).toEqual(before);
  });

  it('refuses a task name another suite in the same folder already registers', async () => {
    const parent = fresh();
    await emitSuite(nodeVfs, questions, { suite: 'aptpace_one', outDir: path.join(parent, 'one') });
    const r = await emitSuite(nodeVfs, questions, { suite: 'aptpace_two', outDir: path.join(parent, 'two') });
    expect(errors(r)).toContain('emit-name-duplicate');
    expect(r.findings.find((f) => f.code === 'emit-name-duplicate')!.args.name).toBe('aptpace_dr_answer');
    expect(readdirSync(parent)).toEqual(['one']);
    const prefixed = await emitSuite(nodeVfs, questions, { suite: 'aptpace_two', outDir: path.join(parent, 'two'), taskPrefix: 'two_' });
    expect(errors(prefixed)).toEqual([]);
    expect(prefixed.tasks.map((t) => t.task)).toContain('two_aptpace_swe_plan_mcq');
    expect(existsSync(path.join(parent, 'two', 'data', 'two_aptpace_swe_plan_mcq.test.jsonl'))).toBe(true);
  });
});

describe('installIntoHarness', () => {
  it('installs into lm_eval/tasks/<suite> and touches nothing else', async () => {
    const checkout = fresh();
    mkdirSync(path.join(checkout, 'lm_eval', 'tasks', 'arc'), { recursive: true });
    writeFileSync(path.join(checkout, 'lm_eval', 'tasks', 'arc', 'arc_easy.yaml'), 'task: arc_easy\n');
    const r = await installIntoHarness(nodeVfs, questions, { checkout, suite: 'aptpace_inst' });
    expect(errors(r)).toEqual([]);
    expect(r.suiteDir).toBe(path.join(checkout, 'lm_eval', 'tasks', 'aptpace_inst'));
    expect(listTree(checkout).filter((p) => !p.startsWith('lm_eval/tasks/aptpace_inst/'))).toEqual([
      'lm_eval/',
      'lm_eval/tasks/',
      'lm_eval/tasks/arc/',
      'lm_eval/tasks/arc/arc_easy.yaml',
    ]);
    expect(r.lmEvalCommand).toBe('HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 lm_eval --model hf --model_args "pretrained=$MODEL" --tasks aptpace_inst --log_samples --output_path runs/aptpace_inst');
    const again = await installIntoHarness(nodeVfs, questions, { checkout, suite: 'aptpace_inst' });
    expect(errors(again)).toEqual([]);
  });

  it('rejects a suite name that would leave lm_eval/tasks, writing nothing', async () => {
    const checkout = fresh();
    mkdirSync(path.join(checkout, 'lm_eval', 'tasks'), { recursive: true });
    const r = await installIntoHarness(nodeVfs, questions, { checkout, suite: '../../escaped' });
    expect(errors(r)).toEqual(['emit-name-invalid']);
    expect(listTree(checkout)).toEqual(['lm_eval/', 'lm_eval/tasks/']);
  });

  it('refuses a folder that is not a harness checkout', async () => {
    const r = await installIntoHarness(nodeVfs, questions, { checkout: fresh(), suite: 'aptpace_inst' });
    expect(errors(r)).toEqual(['emit-harness-checkout-invalid']);
  });

  it('refuses to take over a built-in task folder, even with --force', async () => {
    const checkout = fresh();
    mkdirSync(path.join(checkout, 'lm_eval', 'tasks', 'aptpace_taken'), { recursive: true });
    writeFileSync(path.join(checkout, 'lm_eval', 'tasks', 'aptpace_taken', 'README.md'), 'a built-in task family\n');
    const r = await installIntoHarness(nodeVfs, questions, { checkout, suite: 'aptpace_taken' });
    expect(errors(r)).toEqual(['emit-suite-folder-foreign']);
    const forced = await installIntoHarness(nodeVfs, questions, { checkout, suite: 'aptpace_taken', force: true });
    expect(errors(forced)).toEqual(['emit-suite-folder-foreign']);
    expect(readdirSync(path.join(checkout, 'lm_eval', 'tasks', 'aptpace_taken'))).toEqual(['README.md']);
    expect(readFileSync(path.join(checkout, 'lm_eval', 'tasks', 'aptpace_taken', 'README.md'), 'utf8')).toBe('a built-in task family\n');
  });
});

describe('files the harness leaves behind', () => {
  // Emit no longer deletes what it did not write: the harness's bytecode cache stays (Python
  // revalidates it against utils.py's mtime) and is not reported as a foreign file.
  it('leaves Python bytecode caches alone without a warning, and refuses a foreign manifest', async () => {
    const out = path.join(fresh(), 'suite');
    await emitSuite(nodeVfs, questions, { suite: 'aptpace_t8', outDir: out });
    mkdirSync(path.join(out, '__pycache__'));
    writeFileSync(path.join(out, '__pycache__', 'utils.cpython-311.pyc'), 'stale');
    const again = await emitSuite(nodeVfs, questions, { suite: 'aptpace_t8', outDir: out });
    expect(again.findings.filter((f) => f.severity !== 'info').map((f) => f.code)).toEqual([]);
    expect(readFileSync(path.join(out, '__pycache__', 'utils.cpython-311.pyc'), 'utf8')).toBe('stale');

    const other = path.join(fresh(), 'suite');
    mkdirSync(other);
    writeFileSync(path.join(other, 'aptpace-manifest.json'), '{"not": "ours"}');
    const refused = await emitSuite(nodeVfs, questions, { suite: 'aptpace_t8b', outDir: other });
    expect(errors(refused)).toEqual(['emit-target-not-empty']);
    const forced = await emitSuite(nodeVfs, questions, { suite: 'aptpace_t8b', outDir: other, force: true });
    expect(errors(forced)).toEqual([]);
    expect(JSON.parse(readFileSync(path.join(other, 'aptpace-manifest.json'), 'utf8')).suite).toBe('aptpace_t8b');
  });
});

describe('interrupted writes', () => {
  it('removes staging folders a killed run left beside the target', async () => {
    const parent = fresh();
    const leftover = path.join(parent, '.suite.aptpace-staging-0123456789ab');
    mkdirSync(leftover);
    writeFileSync(path.join(leftover, 'x.yaml'), 'task: "x"\n');
    mkdirSync(path.join(parent, '.other.aptpace-old-0123456789ab'));
    const r = await emitSuite(nodeVfs, await fixtureQuestions(), { suite: 'aptpace_t7', outDir: path.join(parent, 'suite') });
    expect(errors(r)).toEqual([]);
    expect(readdirSync(parent).sort()).toEqual(['.other.aptpace-old-0123456789ab', 'suite']);
  });
});
