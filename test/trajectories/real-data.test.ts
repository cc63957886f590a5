import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeVfs } from '../../generator/core/kernel/node-vfs.js';
import { loadEvidence } from '../../generator/core/trajectories/evidence.js';
import { readTrajectories, validateTrajectory } from '../../generator/core/trajectories/read.js';
import type { Trajectory } from '../../generator/core/trajectories/types.js';
import { cli } from '../helpers/cli.js';
import { hasSharedData, shared } from '../helpers/env.js';
import { tempDir } from '../helpers/tmp.js';

describe.skipIf(!hasSharedData)('real trajectories in ../shared/data/trajectories', () => {
  const root = shared('trajectories');
  const dir = tempDir('aptpace-real-');

  it('every file is detected and parsed; evaluation files are recognised, nothing is rejected', async () => {
    const r = await readTrajectories(nodeVfs, [root]);
    const formats = Object.fromEntries(r.files.map((f) => [path.relative(root, f.file), f.format]));
    expect(formats).toEqual({
      'deep-research/aptbench_summ_ans_en.head120.jsonl': 'deep-research-steps',
      'deep-research/aptbench_summ_ans_zh.head40.jsonl': 'deep-research-steps',
      'mini-swe-agent/github_issue.traj.json': 'mini-swe-agent',
      'mini-swe-agent/results.json': 'predictions',
      'openhands/basic.json': 'openhands-events',
      'openhands/basic_interactions.json': 'openhands-events',
      'openhands/multi_swe_bench_output.jsonl': 'openhands-output-jsonl',
      'swe-agent/humanevalfix-python-0.traj': 'swe-agent-traj',
      'swe-agent/marshmallow-code__marshmallow-1867.classic.traj': 'swe-agent-traj',
      'swe-agent/marshmallow-code__marshmallow-1867.function_calling.traj': 'swe-agent-traj',
      'swe-agent/pydicom__pydicom-1458.all_preds.jsonl': 'predictions',
      'swe-agent/pydicom__pydicom-1458.traj': 'swe-agent-traj',
    });
    expect(r.findings.filter((f) => f.severity !== 'info')).toEqual([]);
    expect(r.tally).toEqual({ read: 170, accepted: 170, rejected: 0, skipped: { predictions: 2 } });
    for (const t of r.trajectories) expect(validateTrajectory(t)).toEqual([]);
    expect(new Set(r.trajectories.map((t) => t.traj_id)).size).toBe(170);
    // Language per trajectory: the 40 Chinese APTBench rows are zh, everything else en.
    const zh = r.trajectories.filter((t) => t.task.language === 'zh').map((t) => path.basename(t.source.path));
    expect(zh).toEqual(Array(40).fill('aptbench_summ_ans_zh.head40.jsonl'));
    expect(r.trajectories.filter((t) => t.task.language === 'en')).toHaveLength(130);
    // No CTF run in this data: nothing is taken for one.
    expect(r.trajectories.filter((t) => t.domain === 'ctf')).toEqual([]);
  });

  it('step counts, actions and outcomes match the source files', async () => {
    const r = await readTrajectories(nodeVfs, [root]);
    const byFile = (name: string) => r.trajectories.filter((t) => t.source.path.endsWith(name));
    const pydicom = byFile('pydicom__pydicom-1458.traj')[0]!;
    const raw = JSON.parse(readFileSync(shared('trajectories', 'swe-agent', 'pydicom__pydicom-1458.traj'), 'utf8'));
    expect(pydicom.steps).toHaveLength(raw.trajectory.length);
    pydicom.steps.forEach((s, i) => {
      expect(s.action.raw).toBe(raw.trajectory[i].action.trim());
      expect(s.observation).toBe(raw.trajectory[i].observation);
    });
    expect(pydicom.steps[0]!.action.text).toBe('create reproduce_bug.py');
    expect(pydicom.metrics).toMatchObject({ tokens_in: 122612, tokens_out: 1369, api_calls: 12 });
    expect(pydicom.outcome).toMatchObject({ exit_status: 'submitted', success: null, success_source: 'unknown' });

    const fc = byFile('function_calling.traj')[0]!;
    expect(fc.task.instance_id).toBe('marshmallow-code__marshmallow-1867');
    expect(fc.steps).toHaveLength(11);
    expect(fc.agent.model).toBe('gpt-4o');
    expect(fc.environment.image).toBe('swebench/sweb.eval.x86_64.marshmallow-code_1776_marshmallow-1867:latest');
    expect(fc.steps[0]!.action).toMatchObject({ tool: 'create', args: { filename: 'reproduce.py' }, text: 'create reproduce.py' });
    expect(byFile('classic.traj')[0]!.task.instance_id).toBe('marshmallow-code__marshmallow-1867');

    const mini = byFile('github_issue.traj.json')[0]!;
    expect(mini.steps).toHaveLength(10);
    expect(mini.steps.at(-1)!.action).toMatchObject({ kind: 'finish', text: 'echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached' });
    expect(mini.outcome.submission).toMatch(/^diff --git a\/tests\/missing_colon.py/);

    const rows = byFile('multi_swe_bench_output.jsonl');
    expect(rows.map((t) => t.task.instance_id)).toEqual(['ponylang__ponyc-4595', 'ponylang__ponyc-4593', 'ponylang__ponyc-4588']);
    expect(rows.map((t) => t.outcome.self_report)).toEqual(['partial', 'false', null]);
    expect(rows.every((t) => t.outcome.success === null && t.agent.model === 'openai/openrouter-llama-4-maverick')).toBe(true);
    expect(rows[0]!.steps[0]!.action.text).toBe('ls -l /workspace/ponylang__ponyc__0.1');
    expect(rows[0]!.steps[0]!.obs_meta).toEqual({ exit_code: 0, ok: true });

    const dr = byFile('aptbench_summ_ans_en.head120.jsonl');
    expect(dr).toHaveLength(120);
    expect(dr.every((t) => t.domain === 'deep_research' && t.outcome.success === true && t.outcome.success_source === 'benchmark_construction')).toBe(true);
    const lines = readFileSync(shared('trajectories', 'deep-research', 'aptbench_summ_ans_en.head120.jsonl'), 'utf8').trimEnd().split('\n');
    dr.forEach((t, i) => {
      const row = JSON.parse(lines[i]!);
      expect(t.task.instance_id).toBe(row.uuid);
      expect(t.steps).toHaveLength(JSON.parse(row.trajectory).length);
      expect(t.task.gold_answer).toBe(row.query_answer);
      expect(t.outcome.submission).toBe(row.answer);
    });
  });

  it('normalize round-trips: the canonical JSONL reads back to the same trajectories', async () => {
    const out = path.join(dir, 'real.jsonl');
    const r = await cli('normalize', root, '--out', out, '--quiet', '--license', 'see-shared-README');
    expect(r.code).toBe(0);
    const original = await readTrajectories(nodeVfs, [root], { license: 'see-shared-README' });
    const back = await readTrajectories(nodeVfs, [out]);
    expect(back.tally).toEqual({ read: 170, accepted: 170, rejected: 0 });
    expect(back.trajectories).toEqual(original.trajectories);
    expect(back.trajectories.every((t: Trajectory) => t.source.license === 'see-shared-README')).toBe(true);
  });

  it('APTBench plan rows: the trajectory prefix plus the gold next step, with the tool set', async () => {
    const file = shared('aptbench-reference', 'deepresearch_plan_zh.sample5.jsonl');
    const r = await readTrajectories(nodeVfs, [file]);
    expect(r.findings).toEqual([]);
    const rows = readFileSync(file, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l));
    expect(r.trajectories).toHaveLength(rows.length);
    r.trajectories.forEach((t, i) => {
      const row = rows[i]!;
      const prefix = JSON.parse(row.trajectory);
      const next = JSON.parse(row.next_step);
      expect(t.steps).toHaveLength(prefix.length + 1);
      expect(t.steps.at(-1)!.action).toMatchObject({ tool: next.execution.name, args: next.execution.args });
      expect(t.steps.at(-1)!.plan).toBe(next.planning.replace(/\s+/g, ' ').trim());
      expect(t.extra).toMatchObject({ gold_next_step: prefix.length, question_id: row.qid });
      expect(t.environment.tools.map((x) => x.name)).toEqual(expect.arrayContaining(['web_search', 'browse_website']));
      expect(t.task).toMatchObject({ language: 'zh', gold_answer: row.query_answer });
      expect(t.outcome).toMatchObject({ submission: null, success: true, success_source: 'benchmark_construction' });
    });
  });

  it('OpenHands Index per-instance results are a recognised report', async () => {
    const file = shared('openhands-index', 'results', 'claude-sonnet-4-5', 'instance_results', 'swe-bench.json');
    const index = await loadEvidence(nodeVfs, [file]);
    expect(index.findings).toEqual([]);
    const raw = JSON.parse(readFileSync(file, 'utf8')) as Record<string, { resolved: boolean }>;
    expect(index.verdicts.size).toBe(Object.keys(raw).length);
    for (const [id, v] of Object.entries(raw)) expect(index.verdicts.get(id)?.resolved).toBe(v.resolved);
  });
});
