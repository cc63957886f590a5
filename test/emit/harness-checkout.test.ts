/**
 * `emit --harness` judges names and the version by the checkout on disk (its task YAMLs, with
 * `!function` tags and `include:`), not by the committed lm-eval 0.4.13 snapshot.
 */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { nodeVfs } from '../../generator/core/kernel/node-vfs.js';
import { installIntoHarness } from '../../generator/core/emit/suite.js';
import { readCheckoutNames } from '../../generator/core/emit/harness-checkout.js';
import type { Question } from '../../generator/core/questions/types.js';
import { tempDir } from '../helpers/tmp.js';
import { hasPython, repoRoot } from '../helpers/env.js';
import { fixtureQuestions } from './support.js';

const root = tempDir('aptpace-checkout-');
let n = 0;
let questions: Question[];
beforeAll(async () => {
  questions = await fixtureQuestions();
});

function fakeCheckout(version: string | null, tasks: Record<string, string>): string {
  const dir = path.join(root, `co${++n}`);
  mkdirSync(path.join(dir, 'lm_eval', 'tasks'), { recursive: true });
  if (version) writeFileSync(path.join(dir, 'pyproject.toml'), `[project]\nname = "lm_eval"\nversion = "${version}"\n`);
  for (const [rel, text] of Object.entries(tasks)) {
    mkdirSync(path.dirname(path.join(dir, 'lm_eval', 'tasks', rel)), { recursive: true });
    writeFileSync(path.join(dir, 'lm_eval', 'tasks', rel), text);
  }
  return dir;
}

const codes = (r: { findings: { code: string }[] }) => r.findings.map((f) => f.code);

describe('names and version from the checkout', () => {
  it('reads task, group and tag names through !function tags and include:', async () => {
    const co = fakeCheckout('0.4.11', {
      'mine/_base.yaml': 'dataset_path: x\ntag:\n  - my_tag\nprocess_docs: !function utils.process_docs\n',
      'mine/one.yaml': 'include: _base.yaml\ntask: my_task_one\ndoc_to_text: !function utils.doc_to_text\n',
      'mine/_group.yaml': 'group: my_group\ntask:\n  - my_task_one\n  - task: my_inline_task\n    dataset_path: y\n',
      'broken/bad.yaml': 'task: [unclosed\n',
    });
    const r = await readCheckoutNames(nodeVfs, co);
    expect([...r.names].sort()).toEqual(['my_group', 'my_inline_task', 'my_tag', 'my_task_one']);
    expect(r.harness_version).toBe('0.4.11');
    expect(r.unreadable).toBe(1);
  });

  it('refuses a task name the checkout defines even though the snapshot does not know it, and warns for an untested version', async () => {
    const taken = questions[0]!.task;
    const co = fakeCheckout('0.4.11', { 'theirs/t.yaml': `task: ${taken}\nprocess_results: !function utils.process\n` });
    const r = await installIntoHarness(nodeVfs, questions, { checkout: co, suite: 'aptpace_co' });
    expect(codes(r)).toContain('emit-name-builtin');
    expect(codes(r)).toContain('emit-harness-version-untested');
    expect(r.findings.find((f) => f.code === 'emit-harness-version-untested')!.args.version).toBe('0.4.11');
    expect(r.files).toEqual([]);
    expect(readdirSync(path.join(co, 'lm_eval', 'tasks'))).toEqual(['theirs']);
  });

  it('installs into a clean checkout of a tested version without version findings', async () => {
    const co = fakeCheckout('0.4.13', { 'other/o.yaml': 'task: something_else\n' });
    const r = await installIntoHarness(nodeVfs, questions, { checkout: co, suite: 'aptpace_co2' });
    expect(r.findings.filter((f) => f.severity === 'error')).toEqual([]);
    expect(codes(r)).not.toContain('emit-harness-version-untested');
    expect(codes(r)).not.toContain('emit-builtin-names-version');
    // Reinstalling skips our own suite folder when collecting the checkout's names.
    const again = await installIntoHarness(nodeVfs, questions, { checkout: co, suite: 'aptpace_co2' });
    expect(again.findings.filter((f) => f.severity === 'error')).toEqual([]);
  });

  it.skipIf(!hasPython)('on the installed lm-eval 0.4.13 finds every name of the committed snapshot', async () => {
    const lib = path.join(repoRoot, '.venv', 'lib');
    const site = path.join(lib, readdirSync(lib).find((d) => d.startsWith('python'))!, 'site-packages');
    const r = await readCheckoutNames(nodeVfs, site);
    const snapshot = JSON.parse(readFileSync(path.join(repoRoot, 'generator', 'core', 'emit', 'harness-task-names.json'), 'utf8')) as { names: string[] };
    expect(r.harness_version).toBe('0.4.13');
    expect(r.unreadable).toBe(0);
    expect(snapshot.names.filter((name) => !r.names.has(name))).toEqual([]);
  });
});
