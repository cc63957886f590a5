import { describe, expect, it } from 'vitest';
import { budgetFindings, parseReferenceFile } from '../../generator/core/workflow/reference.js';
import { closestName } from '../../generator/core/kernel/suggest.js';

const ref = (name: string, scores: string) => `  - {name: ${name}, model: hf, model_args: "pretrained=org/${name}", scores: {${scores}}}`;
const file = (refs: string[], extra = '') => `format: aptpace-reference/1\n${extra}references:\n${refs.join('\n')}\n`;

describe('reference-population file', () => {
  it('reads models, how to run them, their scores and the target set', () => {
    const refs = Array.from({ length: 20 }, (_, i) => ref(`m${i}`, `swe-bench: 0.${i % 10}, gaia: 0.${(i + 3) % 10}`));
    const { reference, findings } = parseReferenceFile(file(refs, 'harness: {batch_size: auto, extra_args: [--trust_remote_code]}\ncheckpoints:\n  - {name: step-1, model: hf, model_args: pretrained=/ckpt/1, step: 1000}\n'), 'r.yaml');
    expect(findings).toEqual([]);
    expect(reference!.targets).toEqual(['gaia', 'swe-bench']);
    expect(reference!.references).toHaveLength(20);
    expect(reference!.references[3]).toEqual({ name: 'm3', model: 'hf', model_args: 'pretrained=org/m3', extra_args: [], scores: { 'swe-bench': 0.3, gaia: 0.6 } });
    expect(reference!.checkpoints).toEqual([{ name: 'step-1', model: 'hf', model_args: 'pretrained=/ckpt/1', extra_args: [], step: 1000 }]);
    expect(reference!.harness).toEqual({ batch_size: 'auto', extra_args: ['--trust_remote_code'], command: ['lm_eval'], env: [] });
    expect(reference!.slurm).toEqual({ gres: 'gpu:1', cpus_per_task: 8, time: '04:00:00', directives: [] });
  });

  it('reports a reference without a target score, out-of-range and non-numeric scores, duplicates and unknown keys, each with its line', () => {
    const text = file([
      ref('a', 'swe-bench: 0.3, gaia: 0.2'),
      ref('b', 'swe-bench: 0.4'),
      ref('c', 'swe-bench: 1.5, gaia: .nan'),
      ref('a', 'swe-bench: 0.1, gaia: x'),
      '  - {name: d, model: hf, model_args: p, scores: {swe-bench: 0.1, gaia: 0.1}, model_arg: typo}',
    ], 'scor_scale: fraction\n');
    const { findings } = parseReferenceFile(text, 'r.yaml');
    const codes = findings.map((f) => `${f.code}@${f.path.line ?? '-'}:${f.path.field}`);
    expect(codes).toEqual([
      'reference-unknown-key@2:scor_scale',
      'reference-score-range@6:references[2].scores.swe-bench',
      'reference-score-range@6:references[2].scores.gaia',
      'reference-duplicate-name@7:references[3].name',
      'reference-score-range@7:references[3].scores.gaia',
      'reference-unknown-key@8:references[4].model_arg',
      'reference-missing-target@5:references.b.scores',
      'reference-small@-:references',
    ]);
    expect(findings.find((f) => f.code === 'reference-unknown-key' && f.path.field === 'scor_scale')!.args.suggestion).toBe('score_scale');
    expect(findings.find((f) => f.path.field === 'references[4].model_arg')!.args.suggestion).toBe('model_args');
  });

  it('needs enough references: an error below the minimum, a warning below the recommended size, and a budget check', () => {
    expect(parseReferenceFile(file([ref('a', 's: 0.1'), ref('b', 's: 0.2'), ref('c', 's: 0.3')]), 'r.yaml').findings.map((f) => f.code)).toEqual(['reference-too-few']);
    expect(parseReferenceFile(file([ref('a', 's: 0.1'), ref('b', 's: 0.2'), ref('c', 's: 0.3'), ref('d', 's: 0.4')]), 'r.yaml').findings.map((f) => f.code)).toEqual(['reference-small']);
    expect(budgetFindings(5, 100, 'r.yaml').map((f) => f.code)).toEqual(['reference-budget-large']);
    expect(budgetFindings(30, 100, 'r.yaml')).toEqual([]);
  });

  it('percent scale accepts 0–100 and rejects fractions above it; invalid YAML is a finding, not a crash', () => {
    const text = file([ref('a', 's: 45'), ref('b', 's: 101'), ref('c', 's: 3'), ref('d', 's: 0')], 'score_scale: percent\n');
    expect(parseReferenceFile(text, 'r.yaml').findings.map((f) => f.code)).toEqual(['reference-score-range', 'reference-small']);
    expect(parseReferenceFile('references: [\n', 'r.yaml').findings.map((f) => f.code)).toEqual(['reference-yaml']);
    expect(parseReferenceFile('- a\n- b\n', 'r.yaml').findings.map((f) => f.code)).toEqual(['reference-field']);
  });

  it('reads harness.command, env and setup, and rejects control characters in names and bad harness fields', () => {
    const four = [ref('a', 's: 0.1'), ref('b', 's: 0.2'), ref('c', 's: 0.3'), ref('d', 's: 0.4')];
    const ok = parseReferenceFile(file(four, 'harness:\n  command: [accelerate, launch, -m, lm_eval]\n  env: {HF_HOME: /scratch/hf, TEAM: "a b"}\n  setup: source /opt/venv/bin/activate\n'), 'r.yaml');
    expect(ok.findings.map((f) => f.code)).toEqual(['reference-small']);
    expect(ok.reference!.harness).toEqual({ extra_args: [], command: ['accelerate', 'launch', '-m', 'lm_eval'], env: [['HF_HOME', '/scratch/hf'], ['TEAM', 'a b']], setup: 'source /opt/venv/bin/activate' });
    expect(parseReferenceFile(file(four, 'harness: {command: /opt/venv/bin/lm_eval}\n'), 'r.yaml').reference!.harness.command).toEqual(['/opt/venv/bin/lm_eval']);
    const bad = parseReferenceFile(file(four, 'harness:\n  command: []\n  env: {"1X": y}\n  setup: "a\\nb"\n'), 'r.yaml');
    expect(bad.findings.filter((f) => f.code === 'reference-field').map((f) => f.path.field)).toEqual(['harness.command', 'harness.env.1X', 'harness.setup']);
    const names = parseReferenceFile(file(['  - {name: "a\\tb", model: hf, model_args: p, scores: {s: 0.1}}', '  - {name: "c\\nd", model: hf, model_args: p, scores: {s: 0.1}}', ...four]), 'r.yaml');
    expect(names.findings.filter((f) => f.code === 'reference-field').map((f) => f.path.field)).toEqual(['references[0].name', 'references[1].name']);
    expect(names.reference!.references.map((r) => r.name)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('reads kebab-case spellings of its snake_case keys the same, but never rewrites target or variable names', () => {
    const refs = (k: (snake: string) => string) => ['a', 'b', 'c', 'd'].map((n, i) => `  - {name: ${n}, model: hf, ${k('model_args')}: pretrained=${n}, ${k('extra_args')}: [--seed, "1"], scores: {swe-bench: ${10 * i}}}`);
    const head = (k: (snake: string) => string) => `${k('score_scale')}: percent\nslurm: {${k('cpus_per_task')}: 2}\nharness: {${k('batch_size')}: auto, env: {MY_VAR: x}}\n`;
    const snake = parseReferenceFile(file(refs((x) => x), head((x) => x)), 'r.yaml');
    const kebab = parseReferenceFile(file(refs((x) => x.replace(/_/g, '-')), head((x) => x.replace(/_/g, '-'))), 'r.yaml');
    expect(kebab.findings).toEqual(snake.findings);
    expect(kebab.reference).toEqual(snake.reference);
    expect(snake.reference!.targets).toEqual(['swe-bench']);
    expect(snake.reference!.harness.env).toEqual([['MY_VAR', 'x']]);
    expect(snake.reference!.slurm.cpus_per_task).toBe(2);
  });

  it('suggests only close names', () => {
    expect(closestName('swe-bnch', ['swe-bench', 'gaia'])).toBe('swe-bench');
    expect(closestName('SWE_Bench', ['swe-bench', 'gaia'])).toBe('swe-bench');
    expect(closestName('terminal', ['swe-bench', 'gaia'])).toBeNull();
  });
});

describe('targets from the reference file', () => {
  it('writes the references\' scores on the file\'s own scale, said per row, in the long CSV that ingest --targets reads', async () => {
    const { targetsCsv } = await import('../../generator/core/workflow/reference.js');
    const text = 'score_scale: percent\nreferences:\n' + ['a', 'b', 'c', 'd'].map((n, i) => ref(n, `swe-bench: ${10 * i + 5}`)).join('\n') + '\n';
    const { reference } = parseReferenceFile(text, 'r.yaml');
    const csv = targetsCsv(reference!);
    expect(csv).toBe('model,target,score,scale\na,swe-bench,5,percent\nb,swe-bench,15,percent\nc,swe-bench,25,percent\nd,swe-bench,35,percent\n');
    // Read back: the target stays on the percent scale (values under 1 would otherwise be taken for fractions).
    const { readTargets } = await import('../../generator/core/logs/targets/index.js');
    const { MemoryVfs } = await import('../../generator/core/kernel/memory-vfs.js');
    const low = csv.replace(',5,', ',0.5,');
    const read = await readTargets(new MemoryVfs({ '/t/targets.csv': low }), ['/t/targets.csv']);
    expect(read.targets.map((t) => [t.target, t.scale, t.scores.a])).toEqual([['swe-bench', 'percent', 0.5]]);
    expect(read.findings.map((f) => f.code)).not.toContain('target-scale-inferred');
    // A row that contradicts its target's scale is rejected with file, line and field.
    const mixed = await readTargets(new MemoryVfs({ '/t/targets.csv': `${csv}e,swe-bench,0.4,fraction\n` }), ['/t/targets.csv']);
    expect(mixed.findings.find((f) => f.code === 'target-bad-value')?.path).toMatchObject({ file: '/t/targets.csv', line: 6, field: 'scale' });
    expect(mixed.tally.rejected).toBe(1);
  });
});
