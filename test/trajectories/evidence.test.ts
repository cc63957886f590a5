import { describe, expect, it } from 'vitest';
import { nodeVfs } from '../../generator/core/kernel/node-vfs.js';
import { classifyEvaluation, loadEvidence } from '../../generator/core/trajectories/evidence.js';
import { readTrajectories } from '../../generator/core/trajectories/read.js';
import { isProvenSuccess } from '../../generator/core/trajectories/types.js';
import { fixtures } from '../helpers/env.js';

const report = (name: string) => fixtures('trajectories', 'reports', name);
const good = fixtures('trajectories', 'good');

describe('report shapes', () => {
  it('recognises per-instance verdicts, SWE-bench summaries, id lists, label rows and predictions', () => {
    expect(classifyEvaluation({ a: { resolved: true }, b: { resolved: false } })).toEqual({ kind: 'report', verdicts: [['a', true, 'harness_report'], ['b', false, 'harness_report']] });
    expect(classifyEvaluation({ a: true, b: false })).toEqual({ kind: 'report', verdicts: [['a', true, 'harness_report'], ['b', false, 'harness_report']] });
    expect(classifyEvaluation({ resolved_ids: ['a'], unresolved_ids: ['b'], error_ids: ['c'], submitted_ids: ['a', 'b', 'c'] })).toEqual({
      kind: 'report',
      verdicts: [['b', false, 'harness_report'], ['c', false, 'harness_report'], ['a', true, 'harness_report']],
    });
    // AutoCodeRover new_eval_results/report.json
    expect(classifyEvaluation({ resolved: ['a'], applied: ['a', 'b'], no_apply: ['c'] })).toEqual({ kind: 'report', verdicts: [['c', false, 'harness_report'], ['a', true, 'harness_report']] });
    expect(classifyEvaluation(['a', 'b'])).toEqual({ kind: 'report', verdicts: [['a', true, 'harness_report'], ['b', true, 'harness_report']] });
    expect(classifyEvaluation([{ instance_id: 'a', label: true }, { id: 'b', is_correct: false }])).toEqual({
      kind: 'report',
      verdicts: [['a', true, 'dataset_label'], ['b', false, 'answer_match']],
    });
    expect(classifyEvaluation({ a: { model_patch: 'diff', instance_id: 'a' } })).toEqual({ kind: 'predictions', entries: 1 });
    expect(classifyEvaluation([{ instance_id: 'a', model_patch: 'diff' }])).toEqual({ kind: 'predictions', entries: 1 });
    expect(classifyEvaluation({ hello: 'world' })).toBeNull();
    expect(classifyEvaluation([])).toBeNull();
  });

  it('refuses predictions and unknown shapes by name', async () => {
    const index = await loadEvidence(nodeVfs, [report('predictions.jsonl'), report('not-a-report.json'), report('missing.json')]);
    expect(index.findings.map((f) => f.code)).toEqual(['evidence-predictions-only', 'evidence-unknown-shape', 'evidence-unreadable']);
    expect(index.verdicts.size).toBe(0);
  });
});

describe('joining evidence', () => {
  it('reports set success with their source; self-reports never do', async () => {
    const r = await readTrajectories(nodeVfs, [good], { reports: [report('instance-verdicts.json'), report('swebench-summary.json'), report('resolved-list.json'), report('labels.jsonl')] });
    const by = Object.fromEntries(r.trajectories.map((t) => [t.task.instance_id, t.outcome]));
    expect(by['acme__widgets-12']).toMatchObject({ success: true, success_source: 'harness_report', success_evidence: report('instance-verdicts.json') });
    // Resolved in one report, unresolved in another: conflicting evidence is not success.
    expect(by['acme__widgets-13']).toMatchObject({ success: false, success_source: 'harness_report' });
    expect(by['acme__widgets-14']).toMatchObject({ success: true, success_source: 'harness_report', success_evidence: report('swebench-summary.json') });
    // OpenHands said `partial`; the harness said unresolved.
    expect(by['acme__widgets-21']).toMatchObject({ success: false, success_source: 'harness_report', self_report: 'partial' });
    // The row's own label said false; the report wins, with a warning.
    expect(by['acme__widgets-31']).toMatchObject({ success: true, success_source: 'harness_report' });
    expect(by['dr-0002']).toMatchObject({ success: true, success_source: 'dataset_label' });
    expect(by['acme__widgets-32']).toMatchObject({ success: false, success_source: 'dataset_label' });
    // Untouched: no report mentions these.
    expect(by['mini-bare-list']).toMatchObject({ success: null, success_source: 'unknown' });
    expect(by['openhands-events']).toMatchObject({ success: null, success_source: 'unknown', self_report: 'true' });

    const codes = r.findings.map((f) => f.code);
    expect(codes).toContain('evidence-conflict');
    expect(r.findings.find((f) => f.code === 'evidence-overrides-label')?.path).toMatchObject({ line: 2, field: 'outcome.success' });
    const unmatched = r.findings.filter((f) => f.code === 'evidence-unmatched');
    expect(unmatched.map((f) => [f.path.file, f.args.count, f.args.examples])).toEqual([[report('instance-verdicts.json'), 1, 'acme__widgets-99']]);
    expect(r.trajectories.filter(isProvenSuccess).map((t) => t.task.instance_id).sort()).toEqual([
      'acme__widgets-12',
      'acme__widgets-14',
      'acme__widgets-20',
      'acme__widgets-30',
      'acme__widgets-31',
      'acme__widgets-40',
      'dr-0001',
      'dr-0002',
    ]);
  });
});
