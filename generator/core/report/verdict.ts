/**
 * The verdict of one `check` in words: which kind of outcome (pass / below threshold / cannot
 * judge / missing data), why, and what to do next — concrete commands built from the run's own
 * inputs. The report headline, the per-target notes beside the win probabilities and the
 * "What next" section all come from here, so they cannot disagree.
 */
import * as path from 'node:path';
import { cvWords, type CheckResult, type CheckTargetResult } from './check-result.js';

export type VerdictKind = 'pass' | 'below-threshold' | 'cannot-judge' | 'missing-data' | 'input-errors';

export function formatScore(value: number | null, scale: CheckTargetResult['scale']): string {
  if (value === null) return '–';
  return scale === 'percent' ? `${value.toFixed(1)}%` : value.toFixed(3);
}

/** Findings the verdict line already spells out per target. */
export const VERDICT_CODES = new Set(['check-cannot-judge', 'pace-threshold-failed', 'pace-threshold-unknown-target', 'check-missing-too-high', 'pace-proxy-too-few-instances', 'pace-model-not-in-logs']);

/** The most pressing kind of outcome: missing data first (nothing else can be trusted), then a failed threshold, then cannot-judge. */
export function verdictKind(result: CheckResult): VerdictKind {
  if (result.passed) return 'pass';
  if (!result.found || result.targets.some((t) => t.status === 'no-prediction' || t.checks.maxMissing === 'fail')) return 'missing-data';
  if (result.targets.some((t) => t.checks.minScore === 'fail') || result.unknownThresholds.length) return 'below-threshold';
  if (result.targets.some((t) => t.status === 'cannot-judge')) return 'cannot-judge';
  return 'input-errors';
}

const KIND_WORDS: Record<VerdictKind, string> = {
  pass: '',
  'below-threshold': 'below threshold',
  'cannot-judge': 'cannot judge',
  'missing-data': 'missing data',
  'input-errors': 'errors in the inputs',
};

export function shortConcern(c: CheckTargetResult['concerns'][number]): string {
  if (c === 'no-demonstrated-skill') return 'the fit shows no skill over the mean predictor in cross-validation';
  if (c === 'below-training-range') return 'the checkpoint scores below every training model on the proxy set';
  if (c === 'proxy-inconsistent') return 'the checkpoint does better on the proxy items than its other items explain';
  return 'the checkpoint lies outside the training models’ range';
}

/** PASS / FAIL, the kind of failure first, then its reasons per target. */
export function checkVerdict(result: CheckResult): { ok: boolean; text: string } {
  if (!result.found) return { ok: false, text: `missing data: checkpoint ${result.model} is not in the inputs; nothing was predicted` };
  if (result.passed) {
    const checked = result.targets.filter((t) => t.status === 'pass').length;
    return { ok: true, text: `${result.targets.length} target(s) predicted${checked ? `; ${checked} checked, all thresholds met` : '; no thresholds set'}` };
  }
  const problems: string[] = [];
  for (const t of result.targets) {
    if (t.status === 'no-prediction') problems.push(`${t.target}: no prediction (${t.missingInstances} of ${t.proxyInstances} proxy instances missing)`);
    if (t.checks.minScore === 'fail' && t.predicted !== null) problems.push(`${t.target}: predicted ${formatScore(t.predicted, t.scale)} < required ${formatScore(t.minScore, t.scale)}`);
    if (t.status === 'cannot-judge') problems.push(`${t.target}: not judged because ${t.concerns.map(shortConcern).join(' and ')} (--allow-unproven to accept)`);
    if (t.checks.maxMissing === 'fail') problems.push(`${t.target}: ${(100 * t.missingFraction).toFixed(1)}% of proxy instances missing > ${(100 * (result.maxMissing ?? 0)).toFixed(1)}%`);
  }
  for (const u of result.unknownThresholds) problems.push(`threshold for unknown target ${u}`);
  const other = result.findings.filter((f) => f.severity === 'error' && !VERDICT_CODES.has(f.code)).length;
  if (other) problems.push(`${other} other error(s) while reading the inputs or the history (see the notices)`);
  return { ok: false, text: `${KIND_WORDS[verdictKind(result)]}: ${problems.join('; ')}` };
}

/** How one target's win probabilities square with its verdict (the column beside them). */
export function winNote(t: CheckTargetResult, beats: number, of: number): string {
  if (t.status === 'cannot-judge') return `not vouched for: the same fitted model gives the prediction, which is not judged (${t.concerns.map(shortConcern).join('; ')})`;
  if (t.checks.minScore === 'fail' && t.predicted !== null && t.minScore !== null) {
    const best = Math.max(...t.winProbabilities.map((w) => w.score));
    const above = Number.isFinite(best) && t.minScore > best;
    return `fails the threshold although it likely beats ${beats} of ${of}: predicted ${formatScore(t.predicted, t.scale)} < min score ${formatScore(t.minScore, t.scale)}${above ? `, which is above every training model (best ${formatScore(best, t.scale)})` : ''}`;
  }
  if (t.status === 'fail') return 'fails --max-missing: too many proxy instances missing for the prediction to be trusted';
  return t.status === 'pass' ? 'consistent with the pass' : 'no threshold set for this target';
}

function inputsFlag(result: CheckResult): string {
  const q = (p: string) => (/^[\w./:@=+-]+$/.test(p) ? p : `'${p.replace(/'/g, `'\\''`)}'`);
  const paths = result.inputs.paths.map(q).join(' ');
  return result.inputs.kind === 'logs' ? `--logs ${paths}` : result.inputs.kind === 'store' ? `--store ${paths}` : `--sources ${paths}`;
}

/** Concrete next steps for the verdict, with commands built from this run's own paths. */
export function whatNext(result: CheckResult): string[] {
  const kind = verdictKind(result);
  const modelFile = result.modelFile.path;
  const proxySuite = path.posix.join(path.dirname(modelFile).split(path.sep).join('/'), 'proxy-suite');
  const storeFlag = result.inputs.kind === 'store' ? `--store ${result.inputs.paths[0]}` : '--store STORE';
  const historyFile = result.history ?? 'reports/history.jsonl';
  const series = `aptpace report ${storeFlag} --model-file ${modelFile} --history ${historyFile} --out reports/series`;
  const recheck = `aptpace check --model-file ${modelFile} --model ${result.model} ${inputsFlag(result)} --out OUT`;
  // The proxy-only suite `fit --suite` writes: exactly the proxy documents, by id.
  const harness = `lm_eval --model hf --model_args pretrained=CHECKPOINT --include_path ${proxySuite} --tasks SUITE --log_samples --output_path runs/${result.model}`;
  const out: string[] = [];
  if (kind === 'pass') {
    if (result.history && result.step !== null) out.push(`Nothing blocks ${result.model}. This check is in ${result.history}; plot every checkpoint so far with: ${series}`);
    else if (result.history) out.push(`Nothing blocks ${result.model}. This check is in ${result.history} without a step: add --step STEP so the trend orders it, then plot every checkpoint with: ${series}`);
    else out.push(`Nothing blocks ${result.model}. Keep the series: run check with --history reports/history.jsonl --step STEP, then plot every checkpoint with: ${series}`);
    if (!result.targets.some((t) => t.minScore !== null)) out.push('No --min-score was set, so this run only predicts. Add --min-score TARGET=VALUE to gate checkpoints on a predicted score.');
    // A pass decided by the point prediction while the interval still reaches below the threshold.
    for (const t of result.targets) {
      const iv = t.intervals.find((i) => i.level === 0.8);
      if (t.minScore === null || t.predicted === null || !iv || iv.unbounded || iv.lower >= t.minScore) continue;
      out.push(
        `${t.target}: the prediction ${formatScore(t.predicted, t.scale)} meets ${formatScore(t.minScore, t.scale)}, but its 80% interval [${formatScore(iv.lower, t.scale)}, ${formatScore(iv.upper, t.scale)}] reaches below it: the pass is not certain. Run the full agentic benchmark on this checkpoint if the decision matters.`,
      );
    }
    return out;
  }
  if (kind === 'missing-data') {
    if (!result.found) out.push(`${result.model} has no scores in the inputs. Run the proxy-only suite in the harness (${harness}; it comes from aptpace fit --suite), then: aptpace check --model-file ${modelFile} --model ${result.model} --logs runs/${result.model} --out OUT`);
    for (const t of result.targets.filter((x) => result.found && (x.status === 'no-prediction' || x.checks.maxMissing === 'fail')))
      out.push(`${t.target}: ${t.missingInstances} of ${t.proxyInstances} proxy instances have no score (listed under "Missing proxy instances"). Run them with the fit’s proxy-only suite (${harness}) and re-check: ${recheck}`);
  }
  for (const t of result.targets.filter((x) => x.checks.minScore === 'fail' && x.predicted !== null && x.minScore !== null)) {
    const reaches = t.interval !== null && t.interval[1] >= t.minScore!;
    out.push(
      `${t.target}: predicted ${formatScore(t.predicted, t.scale)} < min score ${formatScore(t.minScore, t.scale)}. ` +
        (reaches
          ? `The 95% interval ${`[${formatScore(t.interval![0], t.scale)}, ${formatScore(t.interval![1], t.scale)}]`} reaches the threshold, so the shortfall is not certain: run the full agentic benchmark on this checkpoint if the decision matters.`
          : 'Even the 95% interval’s upper end is below the threshold.') +
        ` Compare with earlier checkpoints: ${series}`,
    );
  }
  for (const t of result.targets.filter((x) => x.status === 'cannot-judge')) {
    if (t.concerns.includes('no-demonstrated-skill'))
      out.push(`${t.target}: the fitted model does not beat the mean of the training models in cross-validation (${t.skill ? cvWords(t.skill) : 'leave-one-out'}). Add reference models with known ${t.target} scores (docs/workflow.md, reference population), ingest their runs and refit: aptpace fit --store STORE --out ${path.dirname(modelFile)}. To judge anyway, add --allow-unproven (the report then says so).`);
    if (t.concerns.includes('below-training-range'))
      out.push(`${t.target}: ${result.model} gets fewer proxy items right than the weakest training model, so any prediction for it extrapolates below the reference population. Add weaker reference models (earlier checkpoints of this series with known ${t.target} scores) and refit; until then the gate cannot vouch for it.`);
    if (t.concerns.includes('proxy-inconsistent'))
      out.push(`${t.target}: ${result.model} answers the proxy items better than its other source items explain, further above the training models' line than any of them. If its training data may hold the proxy items (they are public in the proxy suite), refit with another proxy set (aptpace fit --seed) or run the full agentic benchmark; --allow-unproven accepts the prediction.`);
    if (t.concerns.includes('outside-training-range'))
      out.push(`${t.target}: ${result.model} lies outside every training model on ${t.outOfRange.length} embedding coordinate(s), so the prediction extrapolates. Add reference models that bracket it (weaker and stronger) and refit, or add --allow-unproven to accept the extrapolation.`);
  }
  for (const u of result.unknownThresholds) out.push(`--min-score names ${u}, which the model file does not predict; use one of: ${result.targets.map((t) => t.target).join(', ')}.`);
  if (kind === 'input-errors' || result.findings.some((f) => f.severity === 'error' && !VERDICT_CODES.has(f.code))) out.push(`Fix the errors listed under the headline (result.json has every finding with file and line), then re-check: ${recheck}`);
  return out;
}
