/**
 * `aptpace check` end to end through the in-process CLI: fit on a synthetic training store, then
 * check held-out checkpoints. Predictions are compared with `aptpace predict` on the same inputs,
 * missing-instance lists with keys removed by hand, SVG with Python's XML parser.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { modelRows, saveTrainAndHeldOut } from '../helpers/pace-stores.js';
import { hasPython, inCi, python } from '../helpers/env.js';
import { nodeVfs } from '../../generator/core/kernel/node-vfs.js';
import { saveStore } from '../../generator/core/logs/store.js';
import { syntheticPace } from '../../generator/core/pace/inputs/synthetic.js';

const dir = tempDir('aptpace-check-');
const trainStore = path.join(dir, 'train-store');
const heldOutStore = path.join(dir, 'held-out-store');
const gappyStore = path.join(dir, 'gappy-store');
const unusualStore = path.join(dir, 'unusual-store');
const memorizedStore = path.join(dir, 'memorized-store');
const proxyOnlyStore = path.join(dir, 'proxy-only-store');
const fitDir = path.join(dir, 'fit');
const modelFile = path.join(fitDir, 'model.json');
const TRAIN = 12;
const REMOVED = 6;
let removedKeys: string[] = [];
let model: any;

const read = (...p: string[]) => readFileSync(path.join(...p), 'utf8');
const codes = (res: { json: any }) => res.json.findings.map((f: any) => f.code);
const base = (store = heldOutStore, name = 'model-0012') => ['check', '--model-file', modelFile, '--model', name, '--store', store];
/** Every proxy key of one target, from the model file (local and global parts). */
const proxyKeys = (t: any): string[] => [...new Set<string>([...(t.local?.instances ?? []), ...(t.global?.instances ?? [])])].sort();

beforeAll(async () => {
  const syn = syntheticPace({ models: 15, instances: 600, dims: 2, targets: 2, targetInstances: 100, seed: 'check' });
  await saveTrainAndHeldOut(syn, TRAIN, trainStore, heldOutStore);
  const fitted = await cli('fit', '--store', trainStore, '--out', fitDir, '--budget', '40', '--bootstrap', '30', '--nc-h', '2', '--nc-d', '2', '--quiet');
  expect(fitted.code, fitted.stderr).toBe(0);
  model = JSON.parse(read(modelFile));
  // The gappy checkpoint: model-0012's row with the first REMOVED proxy instances of target 0 unobserved.
  removedKeys = proxyKeys(model.targets[0]).slice(0, REMOVED);
  const gappy = modelRows(syn.matrix, TRAIN, TRAIN + 1);
  const observed = Uint8Array.from(gappy.observed);
  gappy.instances.forEach((inst, c) => {
    if (removedKeys.includes(inst.key)) observed[c] = 0;
  });
  await saveStore(nodeVfs, gappyStore, { matrix: { ...gappy, observed }, targets: [] });
  // A checkpoint unlike every training model: right exactly where most of them are wrong.
  const S = syn.matrix.instances.length;
  const contrary = new Float64Array(S);
  for (let c = 0; c < S; c++) {
    let sum = 0;
    for (let r = 0; r < TRAIN; r++) sum += syn.matrix.values[r * S + c] as number;
    contrary[c] = sum / TRAIN < 0.5 ? 1 : 0;
  }
  const row = modelRows(syn.matrix, TRAIN, TRAIN + 1);
  await saveStore(nodeVfs, unusualStore, { matrix: { ...row, models: [{ ...row.models[0]!, name: 'contrarian' }], values: contrary, observed: new Uint8Array(S).fill(1) }, targets: [] });
  // An all-wrong checkpoint that has memorised the proxy items up to model-0012's answers on them.
  const proxy = new Set(model.targets.flatMap((t: any) => proxyKeys(t)));
  const memorized = Float64Array.from(row.instances, (inst, c) => (proxy.has(inst.key) ? (row.values[c] as number) : 0));
  await saveStore(nodeVfs, memorizedStore, { matrix: { ...row, models: [{ ...row.models[0]!, name: 'memorized' }], values: memorized, observed: new Uint8Array(S).fill(1) }, targets: [] });
  // model-0012 as a proxy-suite run logs it: the proxy items only.
  await saveStore(nodeVfs, proxyOnlyStore, { matrix: { ...row, observed: Uint8Array.from(row.instances, (inst, c) => (proxy.has(inst.key) ? row.observed[c]! : 0)) }, targets: [] });
}, 120_000);

describe('aptpace check: verdicts and exit codes', () => {
  it('passes, and result.json holds what `aptpace predict` predicts for the same inputs', async () => {
    const out = path.join(dir, 'pass');
    const predicted = await cli('predict', '--model-file', modelFile, '--model', 'model-0012', '--store', heldOutStore, '--json');
    expect(predicted.code, predicted.stderr).toBe(0);
    const res = await cli(...base(), '--out', out, '--min-score', 'agentic-0=0', '--json');
    expect(res.code, res.stderr).toBe(0);
    const result = JSON.parse(read(out, 'result.json'));
    expect(res.json.data).toEqual(result);
    expect(result.format).toBe('aptpace-check-result');
    expect(result.passed).toBe(true);
    expect(result.exitCode).toBe(0);
    expect(result.modelFile.sha256).toBe(createHash('sha256').update(readFileSync(modelFile)).digest('hex'));
    expect(result.modelFile.matrixSha256).toBe(model.data.matrixSha256);
    expect(result.inputs).toEqual({ kind: 'store', paths: [heldOutStore], mapping: null });
    expect(result.targets.map((t: any) => t.target)).toEqual(['agentic-0', 'agentic-1']);
    for (const [i, t] of result.targets.entries()) {
      const f = predicted.json.data.forecasts[i];
      expect(t.predicted).toBe(f.predicted);
      expect(t.interval).toEqual(f.interval);
      expect(t.winProbabilities).toEqual(f.winProbabilities);
      expect(t.proxyInstances).toBe(proxyKeys(model.targets[i]).length);
      expect(t.missing).toEqual([]);
      // Expected rank: 1 + Σ (1 − P(win)), summed here from predict's own win probabilities.
      expect(t.expectedRank).toBeCloseTo(1 + f.winProbabilities.reduce((s: number, w: any) => s + 1 - w.probability, 0), 12);
    }
    expect(result.targets[0].minScore).toBe(0);
    expect(result.targets[0].status).toBe('pass');
    expect(result.targets[1].minScore).toBeNull();
    expect(result.targets[1].status).toBe('unchecked');
    expect(read(out, 'summary.md')).toContain('**PASS**');
    expect(read(out, 'report.html')).toContain('class="verdict ok"');
  });

  it('fails (exit 1) below a threshold; a threshold equal to the prediction passes', async () => {
    const first = JSON.parse(read(dir, 'pass', 'result.json'));
    const p1 = first.targets[1].predicted as number;
    const atThreshold = await cli(...base(), '--out', path.join(dir, 'equal'), '--min-score', `agentic-1=${p1}`, '--json');
    expect(atThreshold.code, atThreshold.stderr).toBe(0);
    const res = await cli(...base(), '--out', path.join(dir, 'fail'), '--min-score', 'agentic-0=0', '--min-score', `agentic-1=${p1 + 1e-6}`, '--json');
    expect(res.code).toBe(1);
    expect(codes(res)).toEqual(['pace-threshold-failed']);
    const result = JSON.parse(read(dir, 'fail', 'result.json'));
    expect(result.passed).toBe(false);
    expect(result.exitCode).toBe(1);
    expect(result.targets.map((t: any) => [t.status, t.checks.minScore])).toEqual([['pass', 'pass'], ['fail', 'fail']]);
    expect(read(dir, 'fail', 'summary.md')).toContain('**FAIL**');
    expect(read(dir, 'fail', 'report.html')).toContain('class="verdict fail"');
    const unknown = await cli(...base(), '--out', path.join(dir, 'unknown'), '--min-score', 'nope=1', '--json');
    expect(unknown.code).toBe(1);
    expect(codes(unknown)).toEqual(['pace-threshold-unknown-target']);
    expect(unknown.json.data.unknownThresholds).toEqual(['nope']);
  });

  it('usage errors exit 2 and write nothing', async () => {
    const out = path.join(dir, 'usage');
    expect((await cli(...base(), '--out', out, '--min-score', 'agentic-0')).code).toBe(2);
    expect((await cli(...base(), '--out', out, '--max-missing', '1.5')).code).toBe(2);
    expect((await cli(...base(), '--out', out, '--max-missing', 'lots')).code).toBe(2);
    expect((await cli(...base(), '--out', out, '--step', 'ten')).code).toBe(2);
    expect((await cli(...base(), '--out', out, '--duplicates', 'mean')).code).toBe(2);
    expect((await cli(...base(), '--out', out, '--sources', path.join(dir, 'x.csv'))).code).toBe(2);
    expect((await cli('check', '--model-file', modelFile, '--model', 'model-0012', '--out', out)).code).toBe(2);
    expect((await cli('check', '--model-file', modelFile, '--model', 'model-0012', '--store', heldOutStore)).code).toBe(2);
    expect((await cli(...base(), '--out', out, '--history', path.join(out, 'result.json'))).code).toBe(2);
    // A threshold outside its target's scale (30 on a 0–1 target, 150 on a percent one) names the scale.
    const t0 = JSON.parse(readFileSync(modelFile, 'utf8')).targets[0];
    const offScale = await cli(...base(), '--out', out, '--min-score', `${t0.target}=${t0.scale === 'percent' ? 150 : 30}`);
    expect(offScale.code).toBe(2);
    expect(offScale.stderr).toContain(`${t0.scale} scale`);
    expect(existsSync(out)).toBe(false);
  });

  it('an unknown checkpoint fails with a report that says so; a broken model file fails without one', async () => {
    const out = path.join(dir, 'nobody');
    const history = path.join(dir, 'nobody-history.jsonl');
    const res = await cli(...base(heldOutStore, 'nobody'), '--out', out, '--history', history, '--json');
    expect(res.code).toBe(1);
    expect(codes(res)).toEqual(['pace-model-not-in-logs', 'check-history-not-updated']);
    expect(existsSync(history)).toBe(false);
    const result = JSON.parse(read(out, 'result.json'));
    expect(result.found).toBe(false);
    expect(result.passed).toBe(false);
    expect(result.targets.map((t: any) => t.status)).toEqual(['no-prediction', 'no-prediction']);
    expect(read(out, 'summary.md')).toContain('pace-model-not-in-logs');

    const bad = path.join(dir, 'bad-model.json');
    writeFileSync(bad, JSON.stringify({ format: 'something-else' }));
    const broken = await cli('check', '--model-file', bad, '--model', 'model-0012', '--store', heldOutStore, '--out', path.join(dir, 'broken'), '--json');
    expect(broken.code).toBe(1);
    expect(codes(broken)).toEqual(['pace-model-file-invalid']);
    expect(existsSync(path.join(dir, 'broken', 'result.json'))).toBe(false);
    const absent = await cli('check', '--model-file', path.join(dir, 'no-such-model.json'), '--model', 'model-0012', '--store', heldOutStore, '--out', path.join(dir, 'absent'), '--json');
    expect(absent.code).toBe(1);
    expect(codes(absent)).toEqual(['pace-model-file-invalid']);
  });
});

describe('aptpace check: missing proxy instances', () => {
  it('warns in all three outputs and lists exactly the missing keys; the prediction matches predict', async () => {
    const out = path.join(dir, 'gappy');
    const res = await cli(...base(gappyStore), '--out', out, '--json');
    expect(res.code, res.stderr).toBe(0);
    const result = JSON.parse(read(out, 'result.json'));
    const expected = model.targets.map((t: any) => proxyKeys(t).filter((k) => removedKeys.includes(k)));
    expect(expected[0]).toHaveLength(REMOVED);
    expect(result.targets.map((t: any) => t.missing)).toEqual(expected);
    expect(result.targets.map((t: any) => t.missingInstances)).toEqual(expected.map((e: string[]) => e.length));
    expect(result.targets[0].missingFraction).toBe(REMOVED / proxyKeys(model.targets[0]).length);
    const warned = result.findings.filter((f: any) => f.code === 'pace-proxy-missing-instances').map((f: any) => f.args.target);
    expect(warned).toEqual(model.targets.filter((_: any, i: number) => expected[i].length > 0).map((t: any) => t.target));
    expect(read(out, 'summary.md')).toContain('warning[pace-proxy-missing-instances]');
    expect(read(out, 'summary.md')).toContain(removedKeys[0]);
    expect(read(out, 'report.html')).toContain('class="notice warning"');
    expect(read(out, 'report.html')).toContain('Missing proxy instances');
    const predicted = await cli('predict', '--model-file', modelFile, '--model', 'model-0012', '--store', gappyStore, '--json');
    expect(result.targets.map((t: any) => t.predicted)).toEqual(predicted.json.data.forecasts.map((f: any) => f.predicted));
  });

  it('--max-missing turns too much missingness into a failure (exit 1), per target', async () => {
    const fraction0 = REMOVED / proxyKeys(model.targets[0]).length;
    const loose = await cli(...base(gappyStore), '--out', path.join(dir, 'gappy-loose'), '--max-missing', String(fraction0), '--json');
    expect(loose.code, loose.stderr).toBe(0);
    expect(loose.json.data.targets[0].checks.maxMissing).toBe('pass');
    const strict = await cli(...base(gappyStore), '--out', path.join(dir, 'gappy-strict'), '--max-missing', '0.01', '--json');
    expect(strict.code).toBe(1);
    const failing = strict.json.findings.filter((f: any) => f.code === 'check-missing-too-high').map((f: any) => f.args.target);
    const expected = model.targets.filter((t: any) => proxyKeys(t).some((k) => removedKeys.includes(k))).map((t: any) => t.target);
    expect(failing).toEqual(expected);
    expect(strict.json.data.targets.filter((t: any) => t.status === 'fail').map((t: any) => t.target)).toEqual(expected);
    expect(read(dir, 'gappy-strict', 'summary.md')).toContain('error[check-missing-too-high]');
  });
});

describe('aptpace check: predictions it cannot vouch for', () => {
  it('does not pass a checkpoint outside the training range unless --allow-unproven, and says why in every output', async () => {
    const out = path.join(dir, 'unproven');
    const res = await cli(...base(unusualStore, 'contrarian'), '--out', out, '--json');
    expect(res.code).toBe(1);
    const result = JSON.parse(read(out, 'result.json'));
    expect(result.passed).toBe(false);
    expect(result.targets.map((t: any) => [t.status, t.concerns])).toEqual([
      ['cannot-judge', ['outside-training-range']],
      ['cannot-judge', ['outside-training-range']],
    ]);
    expect(res.json.findings.filter((f: any) => f.code === 'check-cannot-judge')).toHaveLength(2);
    // The fit's CV quality is shown beside each prediction, and the reason in words.
    const md = read(out, 'summary.md');
    expect(md).toContain('**FAIL**');
    expect(md).toContain('CV MAE vs mean');
    expect(md).toContain('outside the training range');
    expect(read(out, 'report.html')).toContain('outside the training range');
    for (const t of result.targets) {
      expect(t.skill.folds).toBe(TRAIN);
      expect(t.intervals.map((i: any) => i.level)).toEqual([0.8, 0.95]);
      // 12 residuals bound an 80% interval (⌈0.8·13⌉ = 11 ≤ 12) but not a 95% one (⌈0.95·13⌉ = 13 > 12).
      expect(t.intervals.map((i: any) => i.unbounded)).toEqual([false, true]);
      expect(t.intervals[1].lower).toBe(0);
      expect(t.intervals[1].upper).toBe(100);
    }
    // Each excursion is beyond twice its coordinate's sampling standard error, named in the finding.
    for (const f of result.targets) expect(f.outOfRange.some((e: any) => e.kind === 'box' && e.standardError > 0 && Math.min(Math.abs(e.value - e.min), Math.abs(e.value - e.max)) > 2 * e.standardError)).toBe(true);
    expect(res.json.findings.find((f: any) => f.code === 'pace-prediction-out-of-range').args.detail).toContain('sampling standard error');
    const allowed = await cli(...base(unusualStore, 'contrarian'), '--out', path.join(dir, 'allowed'), '--allow-unproven', '--json');
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(allowed.json.findings.filter((f: any) => f.code === 'check-cannot-judge-allowed')).toHaveLength(2);
  });
});

describe('aptpace check: a proxy score its other items do not explain', () => {
  it('does not pass an all-wrong checkpoint that answers the proxy items as a passing one does', async () => {
    const passing = await cli(...base(), '--out', path.join(dir, 'consistent'), '--json');
    expect(passing.code, passing.stderr).toBe(0);
    for (const t of passing.json.data.targets) {
      expect(t.concerns).toEqual([]);
      expect(t.consistency.checked).toBe(true);
      expect(t.consistency.inconsistent).toBe(false);
      expect(t.consistency.observed).toBe(t.consistency.total);
    }
    const out = path.join(dir, 'memorized');
    const res = await cli(...base(memorizedStore, 'memorized'), '--out', out, '--json');
    expect(res.code).toBe(1);
    // The same proxy answers give the same prediction: only the consistency check tells them apart.
    expect(res.json.data.targets.map((t: any) => t.predicted)).toEqual(passing.json.data.targets.map((t: any) => t.predicted));
    expect(res.json.data.targets.map((t: any) => [t.status, t.concerns])).toEqual([
      ['cannot-judge', ['proxy-inconsistent']],
      ['cannot-judge', ['proxy-inconsistent']],
    ]);
    for (const t of res.json.data.targets) expect(t.consistency.proxyMean - t.consistency.expected).toBeGreaterThan(2 * t.consistency.standardError);
    expect(codes(res).filter((c: string) => c === 'pace-prediction-proxy-inconsistent')).toHaveLength(2);
    expect(read(out, 'summary.md')).toContain('proxy score out of line');
    const allowed = await cli(...base(memorizedStore, 'memorized'), '--out', path.join(dir, 'memorized-allowed'), '--allow-unproven', '--json');
    expect(allowed.code, allowed.stderr).toBe(0);
  });

  it('says the check was not made when the logs hold the proxy items only', async () => {
    const res = await cli(...base(proxyOnlyStore), '--out', path.join(dir, 'proxy-only'), '--json');
    expect(res.code, res.stderr).toBe(0);
    for (const t of res.json.data.targets) {
      expect(t.consistency).toMatchObject({ checked: false, observed: 0, inconsistent: false });
      expect(t.consistency.total).toBe(model.targets[0].consistency.instances.length);
    }
    // Said in the findings (a warning per target), not only in the JSON's data.
    const unchecked = res.json.findings.filter((f: any) => f.code === 'pace-prediction-consistency-unchecked');
    expect(unchecked.map((f: any) => [f.severity, f.args.target, f.args.observed])).toEqual(res.json.data.targets.map((t: any) => ['warning', t.target, 0]));
    const full = await cli(...base(), '--out', path.join(dir, 'consistent-full'), '--json');
    expect(codes(full)).not.toContain('pace-prediction-consistency-unchecked');
  });
});

describe('aptpace check: history, files and determinism', () => {
  const history = path.join(dir, 'hist', 'history.jsonl');
  const check = (name: string, step: number, ...extra: string[]) => cli(...base(heldOutStore, name), '--out', path.join(dir, 'hist', name), '--history', history, '--step', String(step), '--force', '--json', ...extra);
  const lines = () => read(history).trim().split('\n').map((l) => JSON.parse(l));

  it('appends one line per checkpoint and replaces the line of a re-checked one in place', async () => {
    for (const [name, step] of [['model-0013', 200], ['model-0012', 100], ['model-0014', 300]] as const) expect((await check(name, step)).code).toBe(0);
    expect(lines().map((e) => [e.model, e.step])).toEqual([['model-0013', 200], ['model-0012', 100], ['model-0014', 300]]);
    const result = JSON.parse(read(dir, 'hist', 'model-0012', 'result.json'));
    expect(lines()[1].targets.map((t: any) => t.predicted)).toEqual(result.targets.map((t: any) => t.predicted));
    const p0 = result.targets[0].predicted as number;
    const again = await check('model-0012', 100, '--min-score', `agentic-0=${p0 + 1}`);
    expect(again.code).toBe(1);
    const after = lines();
    expect(after.map((e) => e.model)).toEqual(['model-0013', 'model-0012', 'model-0014']);
    expect(after[1].passed).toBe(false);
    expect(after[1].targets[0].minScore).toBe(p0 + 1);
    // The trend is ordered by step: 0012 (100), 0013 (200), 0014 (300).
    const md = read(dir, 'hist', 'model-0012', 'summary.md');
    const order = ['model-0012', 'model-0013', 'model-0014'].map((m) => md.indexOf(`| ${m} |`));
    expect(order.every((i) => i > 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });

  it('a long history: summary.md keeps the last 20 rows plus the current one, report.html keeps all', async () => {
    const template = lines()[0];
    const file = path.join(dir, 'long', 'history.jsonl');
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, Array.from({ length: 30 }, (_, i) => `${JSON.stringify({ ...template, model: `ck-${String(i).padStart(2, '0')}`, step: 1000 + i })}\n`).join(''));
    const res = await cli(...base(), '--out', path.join(dir, 'long', 'report'), '--history', file, '--step', '5', '--json');
    expect(res.code, res.stderr).toBe(0);
    expect(codes(res)).toEqual([]);
    const md = read(dir, 'long', 'report', 'summary.md');
    const mdRows = md.split('\n').filter((l) => /^\| (ck-\d\d|model-0012) \|/.test(l)).map((l) => l.split(' | ')[0]!.slice(2));
    expect(mdRows).toEqual(['model-0012', ...Array.from({ length: 20 }, (_, i) => `ck-${10 + i}`)]);
    const html = read(dir, 'long', 'report', 'report.html');
    expect(html.match(/<tr( class="em")?><td>(ck-\d\d|model-0012)<\/td>/g)).toHaveLength(31);
    expect(read(file).trim().split('\n')).toHaveLength(31);
  });

  it('leaves a history with a foreign line untouched (exit 1) and drops the line only with --force', async () => {
    const file = path.join(dir, 'hist2', 'history.jsonl');
    const good = read(history).split('\n')[0]!;
    mkdirSync(path.dirname(file), { recursive: true });
    const content = `${good}\nnot json\n`;
    writeFileSync(file, content);
    const res = await cli(...base(), '--out', path.join(dir, 'hist2', 'a'), '--history', file, '--json');
    expect(res.code).toBe(1);
    expect(res.json.findings.find((f: any) => f.code === 'check-history-bad-line').path).toEqual({ file, line: 2 });
    expect(read(file)).toBe(content);
    const forced = await cli(...base(), '--out', path.join(dir, 'hist2', 'b'), '--history', file, '--force', '--json');
    expect(forced.code, forced.stderr).toBe(0);
    expect(codes(forced)).toContain('check-history-line-dropped');
    expect(read(file).trim().split('\n').map((l) => JSON.parse(l).model)).toEqual(['model-0013', 'model-0012']);
  });

  it('refuses to overwrite a report without --force; reruns are byte-identical', async () => {
    const out = path.join(dir, 'pass');
    const files = ['report.html', 'summary.md', 'result.json'];
    const before = files.map((f) => readFileSync(path.join(out, f)));
    const again = await cli(...base(), '--out', out, '--min-score', 'agentic-0=0');
    // Updated: output-exists is a usage error (exit 2), issue 12.
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('output-exists');
    files.forEach((f, i) => expect(readFileSync(path.join(out, f)).equals(before[i]!)).toBe(true));
    const forced = await cli(...base(), '--out', out, '--min-score', 'agentic-0=0', '--force');
    expect(forced.code, forced.stderr).toBe(0);
    files.forEach((f, i) => expect(readFileSync(path.join(out, f)).equals(before[i]!), f).toBe(true));
    const elsewhere = path.join(dir, 'pass-again');
    expect((await cli(...base(), '--out', elsewhere, '--min-score', 'agentic-0=0')).code).toBe(0);
    files.forEach((f, i) => expect(readFileSync(path.join(elsewhere, f)).equals(before[i]!), f).toBe(true));
  });

  it.skipIf(!hasPython && !inCi)('report.html is self-contained and every inline SVG is well-formed XML (Python’s parser)', () => {
    const html = read(dir, 'hist', 'model-0012', 'report.html');
    expect(html).not.toMatch(/<script|<link|<img|src=|href=/);
    const svgs = [...html.matchAll(/<svg[\s\S]*?<\/svg>/g)].map((m) => m[0]);
    // Per target: score among training models, win probabilities, trend; plus the skill map.
    expect(svgs).toHaveLength(2 * 3 + 1);
    const script = [
      'import sys, json, xml.etree.ElementTree as ET',
      'ns = "{http://www.w3.org/2000/svg}"',
      'out = []',
      'for s in json.load(sys.stdin):',
      '    root = ET.fromstring(s)',
      // Vega's SVG: the title is a text mark of role title-text; bars are the paths of the rect marks, points those of the symbol marks.
      '    groups = lambda role: [g for g in root.iter(ns + "g") if role in (g.get("class") or "").split()]',
      '    title = groups("role-title-text")[0].find(ns + "text").text',
      '    count = lambda mark: sum(len(g.findall(ns + "path")) for g in groups("role-mark") if mark in g.get("class").split())',
      '    out.append([title, count("mark-rect"), count("mark-symbol")])',
      'print(json.dumps(out))',
    ].join('\n');
    const res = spawnSync(python, ['-c', script], { input: JSON.stringify(svgs), encoding: 'utf8' });
    expect(res.stderr).toBe('');
    const parsed = JSON.parse(res.stdout) as Array<[string, number, number]>;
    const titles = parsed.map((p) => p[0]);
    expect(titles).toContain('agentic-0: model-0012 among the training models');
    expect(titles).toContain('agentic-1 over checkpoints');
    // Score chart: TRAIN training bars + the checkpoint's bar.
    expect(parsed.find((p) => p[0] === 'agentic-0: model-0012 among the training models')![1]).toBe(TRAIN + 1);
    // Every chart's Vega-Lite spec is written beside the report, named as the figure caption says.
    const specs = readdirSync(path.join(dir, 'hist', 'model-0012', 'charts')).sort();
    expect(specs).toHaveLength(2 * 3 + 1);
    for (const f of specs) expect(html).toContain(`charts/${f}`);
    // Trend: one point per checkpoint in the history.
    expect(parsed.find((p) => p[0] === 'agentic-0 over checkpoints')![2]).toBe(3);
  });
});
