import { describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { nodeVfs } from '../../generator/core/kernel/node-vfs.js';
import { readTrajectories } from '../../generator/core/trajectories/read.js';
import { normaliseChoice } from '../../generator/core/questions/normalise.js';
import type { Question } from '../../generator/core/questions/types.js';
import { validateQuestion } from '../../generator/core/questions/read-questions.js';
import { cli } from '../helpers/cli.js';
import { fixtures } from '../helpers/env.js';
import { tempDir } from '../helpers/tmp.js';

const CTF_DIR = fixtures('ctf');
const SWE_RUNS = fixtures('canonical', 'swe-basic.jsonl');
const CTF_TASKS = ['aptpace_ctf_next_action', 'aptpace_ctf_next_action_mcq', 'aptpace_ctf_plan_mcq'];

function readJsonl(file: string): Question[] {
  return readFileSync(file, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as Question);
}

async function build(...args: string[]): Promise<{ questions: Question[]; code: number; stderr: string; json: any }> {
  const out = path.join(tempDir('aptpace-ctf-build-'), 'q.jsonl');
  const r = await cli('build', ...args, '--seed', '0', '--out', out, '--json');
  return { questions: r.code <= 1 ? readJsonl(out) : [], code: r.code, stderr: r.stderr, json: r.json };
}

describe('CTF success: the flag was submitted and accepted', () => {
  it('a SWE-agent CTF run that ends with the accepted flag is proven (answer_match); an autosubmitted one is not', async () => {
    const r = await readTrajectories(nodeVfs, [CTF_DIR]);
    expect(r.tally).toMatchObject({ accepted: 6, rejected: 0 });
    const byId = new Map(r.trajectories.map((t) => [t.task.instance_id, t]));
    for (const t of r.trajectories) {
      expect(t.domain, t.task.instance_id).toBe('ctf');
      // The challenge statement without SWE-agent's generic INSTRUCTIONS block ("…all of the changes you have made").
      expect(t.task.goal).toMatch(/^We're currently solving the following CTF challenge\.[\s\S]*The flag format is \S+\.$/);
    }
    // A wrong flag first ("Wrong flag!"), then the accepted one: success rests on the last submit.
    expect(byId.get('ctf__hackthebox__crackme-vault')!.outcome).toMatchObject({ success: true, success_source: 'answer_match' });
    for (const id of ['ctf__csaw-quals__telnet-sniff', 'ctf__picoctf__tiny-rsa', 'ctf__csaw-quals__login-bypass', 'ctf__picoctf__stack-smash']) {
      expect(byId.get(id)!.outcome.success, id).toBe(true);
    }
    // `submitted (exit_cost)`: SWE-agent autosubmitted without checking the flag.
    expect(byId.get('ctf__csaw-quals__autosubmitted')!.outcome).toMatchObject({ success: null, success_source: 'unknown' });
  });

  it('no proof when the recorded flag is not what the last step submitted, when that submit was refused, or for a SWE run', async () => {
    const dir = tempDir('aptpace-ctf-flags-');
    const doc = JSON.parse(readFileSync(path.join(CTF_DIR, 'ctf__picoctf__tiny-rsa.traj'), 'utf8'));
    const other = structuredClone(doc);
    other.info.submission = 'picoCTF{something_else}';
    writeFileSync(path.join(dir, 'ctf__x__mismatch.traj'), JSON.stringify(other));
    const refused = structuredClone(doc);
    refused.trajectory[refused.trajectory.length - 1].observation = 'Wrong flag!';
    writeFileSync(path.join(dir, 'ctf__x__refused.traj'), JSON.stringify(refused));
    const r = await readTrajectories(nodeVfs, [dir]);
    expect(r.trajectories.map((t) => [t.task.instance_id, t.outcome.success])).toEqual([
      ['ctf__x__mismatch', null],
      ['ctf__x__refused', null],
    ]);
    // A SWE run that ends with `submitted` stays unproven, as before.
    const swe = await readTrajectories(nodeVfs, [fixtures('trajectories', 'good', 'acme__widgets-12.traj')]);
    expect(swe.trajectories[0]!.outcome.success).not.toBe(true);
  });
});

describe('CTF questions', () => {
  it('a CTF run gives CTF tasks with CTF wording, and their shots are CTF questions only', async () => {
    const { questions, code, stderr } = await build(CTF_DIR);
    expect(code, stderr).toBe(0);
    expect([...new Set(questions.map((q) => q.task))].sort()).toEqual(CTF_TASKS);
    expect(new Set(questions.map((q) => q.kind))).toEqual(new Set(['plan_mcq', 'next_action_tc', 'next_action_mcq']));
    const byId = new Map(questions.map((q) => [q.id, q]));
    let shown = 0;
    for (const q of questions) {
      expect(q.prompt).toContain('capture-the-flag (CTF)');
      expect(q.prompt).not.toMatch(/software engineer|fixing an issue/);
      expect(q.prompt).toContain('Challenge:\n');
      // The kind's CTF task is one of its own names, not a custom one to flag.
      expect(validateQuestion(q).map((f) => f.code), q.id).toEqual([]);
      for (const id of q.build.fewshot_ids ?? []) {
        shown++;
        expect(byId.get(id)?.task, `${q.id} shows ${id}`).toBe(q.task);
      }
    }
    expect(shown).toBeGreaterThan(0);
  });

  it('a mixed SWE + CTF build keeps shots and borrowed distractors within the domain', async () => {
    const { questions, code, stderr } = await build(CTF_DIR, SWE_RUNS, '--no-audit');
    expect(code, stderr).toBe(0);
    const read = await readTrajectories(nodeVfs, [CTF_DIR, SWE_RUNS]);
    const domainOf = new Map(read.trajectories.map((t) => [t.traj_id, t.domain]));
    const byId = new Map(questions.map((q) => [q.id, q]));
    const ctf = questions.filter((q) => domainOf.get(q.provenance.traj_id) === 'ctf');
    const swe = questions.filter((q) => domainOf.get(q.provenance.traj_id) === 'swe');
    expect(ctf.length).toBeGreaterThan(0);
    expect(swe.length).toBeGreaterThan(0);
    for (const q of ctf) expect(CTF_TASKS).toContain(q.task);
    for (const q of swe) expect(q.task).toMatch(/^aptpace_swe_/);
    let shots = 0;
    for (const q of questions) {
      for (const id of q.build.fewshot_ids ?? []) {
        shots++;
        const shot = byId.get(id)!;
        expect(domainOf.get(shot.provenance.traj_id), `${q.id} (${q.task}) shows ${id} (${shot.task})`).toBe(domainOf.get(q.provenance.traj_id));
      }
    }
    expect(shots).toBeGreaterThan(0);
    // Every step text of each domain, as options show them (plans and one-line commands).
    const texts = new Map<string, Set<string>>([['ctf', new Set()], ['swe', new Set()]]);
    for (const t of read.trajectories) {
      for (const s of t.steps) {
        for (const x of [s.plan, s.thought, s.action.text, s.action.text.replace(/\s*\n\s*/g, ' ')]) if (x) texts.get(t.domain)!.add(normaliseChoice(x));
      }
    }
    let borrowedFromOwnDomain = 0;
    for (const q of [...ctf, ...swe]) {
      if (q.format !== 'mcq') continue;
      const own = domainOf.get(q.provenance.traj_id)!;
      const other = own === 'ctf' ? 'swe' : 'ctf';
      q.choices.forEach((c, i) => {
        if (q.build.choice_sources?.[i] !== 'borrowed_step') return;
        const text = normaliseChoice(c);
        expect(texts.get(other)!.has(text), `${q.id}: a borrowed ${other} step in a ${own} question: ${c}`).toBe(false);
        if (texts.get(own)!.has(text)) borrowedFromOwnDomain++;
      });
    }
    expect(borrowedFromOwnDomain).toBeGreaterThan(0);
  });

  it('Chinese CTF questions use the Chinese CTF wording', async () => {
    const { questions, code, stderr } = await build(CTF_DIR, '--language', 'zh', '--no-audit');
    expect(code, stderr).toBe(0);
    expect(new Set(questions.map((q) => q.kind))).toEqual(new Set(['plan_mcq', 'next_action_tc', 'next_action_mcq']));
    for (const q of questions) {
      expect(q.language).toBe('zh');
      expect(q.prompt.startsWith('以下是') && q.prompt.includes('夺旗赛（CTF）'), q.id).toBe(true);
      expect(q.prompt).toContain('题目描述：\n');
      expect(q.prompt).not.toMatch(/软件工程师|问题描述：/);
    }
  });

  it('passes the audit gate with its own tasks audited', async () => {
    const { questions, code, json } = await build(CTF_DIR);
    expect(code).toBe(0);
    const audited = (json.data.audit.tasks as Array<{ task: string }>).map((t) => t.task).sort();
    expect(audited).toEqual(CTF_TASKS);
    expect(questions.length).toBeGreaterThan(0);
  });
});
