/**
 * The fitted model file `aptpace fit` writes and `aptpace predict` reads: everything needed to
 * place a new checkpoint from its scores on the proxy instances, with no access to the
 * training matrix. JSON, keys sorted, so identical inputs give identical bytes.
 */
import { parseJson } from '../../kernel/json.js';
import type { InstanceRef } from '../../logs/matrix.js';
import type { GoalAFit } from '../predictors/goal-a.js';
import type { PaceConfig, PaceOptions } from '../types.js';
import type { SkillShare } from '../selection/skill-map.js';
import type { CrossValidatedSkill, EmbeddingRange } from '../evaluation/skill.js';
import type { ProxyConsistency } from '../evaluation/proxy-consistency.js';
import { shippedKinds, type ShippedKind } from '../predictors/shipped-family.js';

export const MODEL_FORMAT = 'aptpace-pace-model';
/**
 * 3: targets carry the shipped monotone predictor, a seed-free sign-flip skill verdict with the
 * baselines' cross-validated errors, and the leverage yardstick of each embedding.
 * 4: the shipped predictor is one of four forms (shipped-family.ts), chosen as the simplest not
 * significantly worse, with each form's p against the lowest-MAE one (`cv.kindP`). Model files
 * of earlier versions must be refitted.
 */
export const MODEL_VERSION = 4;

export interface SerializedPart {
  /** Instance keys, in basis row order. */
  instances: string[];
  k: number;
  /** |instances| rows of k numbers: scores ≈ basis·u. */
  basis: number[][];
  /** |instances| rows of k numbers: u = scores·proj when all are observed. */
  proj: number[][];
  goalA: GoalAFit;
  goalB: { w: number[]; iterations: number; gradientNorm: number; rows: number } | null;
}

export interface SerializedTarget {
  target: string;
  scale: 'fraction' | 'percent' | 'raw';
  displayFactor: number;
  config: PaceConfig;
  effectiveM: number;
  bootstrap: number;
  targetInstances: number;
  trainingModels: Array<{ name: string; score: number; local: number[] | null; global: number[] | null }>;
  local: SerializedPart | null;
  global: SerializedPart | null;
  /** The (unguarded) Goal A prediction is exactly intercept + Σ weight·score over these instances. */
  linear: { intercept: number; weights: Array<{ key: string; task: string; weight: number }> };
  /**
   * The predictor `check` uses (monotone.ts): intercept + Σ weight·score over these items (every
   * weight > 0: PACE's positive weights, rescaled on the training models), an unobserved item
   * taking the checkpoint's own mean on its task; clipped to the target's range.
   */
  shipped: { kind: ShippedKind; intercept: number; weights: Array<{ key: string; task: string; weight: number }> };
  skillMap: SkillShare[];
  /** Leave-one-out skill of this configuration against the mean predictor, and the residuals behind the intervals. */
  cv: CrossValidatedSkill;
  /** Box the training models span in each embedding; a checkpoint outside it is an extrapolation. */
  range: EmbeddingRange;
  /**
   * How the training models' proxy mean follows their mean on other source items
   * (proxy-consistency.ts); null with too few models. Absent in model files written before it.
   */
  consistency?: ProxyConsistency | null;
}

export interface PaceModelFile {
  format: typeof MODEL_FORMAT;
  version: typeof MODEL_VERSION;
  versions: Record<string, string>;
  options: PaceOptions;
  data: {
    matrixSha256: string;
    targetsSha256: string;
    poolModels: string[];
    selectableInstances: number;
    instancesByTask: Record<string, number>;
  };
  /** Union of every target's selected instances, sorted by key. */
  proxy: InstanceRef[];
  targets: SerializedTarget[];
  /** Over the union: instance and |weight| shares per source benchmark. */
  skillMap: SkillShare[];
}

export function parseModelFile(text: string): { model: PaceModelFile | null; reason?: string } {
  let raw: unknown;
  try {
    raw = parseJson(text);
  } catch (e) {
    return { model: null, reason: `not JSON (${(e as Error).message})` };
  }
  const m = raw as Partial<PaceModelFile>;
  if (!m || typeof m !== 'object') return { model: null, reason: 'not an object' };
  if (m.format !== MODEL_FORMAT) return { model: null, reason: `format is ${JSON.stringify(m.format)}, expected ${MODEL_FORMAT}` };
  if (m.version !== MODEL_VERSION) return { model: null, reason: `version ${m.version} is not supported (expected ${MODEL_VERSION})` };
  if (!Array.isArray(m.targets) || !Array.isArray(m.proxy)) return { model: null, reason: 'targets or proxy missing' };
  // A model that predicts nothing would let every check "pass" with nothing checked.
  if (m.targets.length === 0) return { model: null, reason: 'targets is empty: the model predicts nothing' };
  for (const [i, t] of m.targets.entries()) {
    for (const side of ['local', 'global'] as const) {
      const p = t?.[side];
      if (p === null) continue;
      if (!p || !Array.isArray(p.instances) || !Array.isArray(p.basis) || !Array.isArray(p.proj) || p.basis.length !== p.instances.length || p.proj.length !== p.instances.length || p.basis.some((r) => !Array.isArray(r) || r.length !== p.k))
        return { model: null, reason: `targets[${i}].${side} is malformed` };
    }
    if (!t.local && !t.global) return { model: null, reason: `targets[${i}] has no embedding` };
    if (!Array.isArray(t.trainingModels)) return { model: null, reason: `targets[${i}].trainingModels missing` };
    const bad = firstNonFinite({ local: t.local, global: t.global, trainingModels: t.trainingModels, cv: t.cv, range: t.range, shipped: t.shipped, consistency: t.consistency ?? null }, `targets[${i}]`);
    if (bad) return { model: null, reason: `${bad} is not a finite number` };
    if (!t.cv || !Array.isArray(t.cv.absResiduals) || !Array.isArray(t.cv.interval) || !t.range) return { model: null, reason: `targets[${i}].cv or .range missing` };
    const shape = targetShapeProblem(t);
    if (shape) return { model: null, reason: `targets[${i}].${shape} is malformed` };
  }
  const top = topShapeProblem(m);
  if (top) return { model: null, reason: `${top} is malformed` };
  return { model: m as PaceModelFile };
}

/** Keys whose null is meaningful (a side without an embedding, an absent Goal B, a missing range). */
const NULLABLE = new Set(['local', 'global', 'goalB', 'proxyMean', 'consistency']);
// (range.leverage.local / .global are null with too few models: covered by 'local' / 'global'.)

/**
 * Path of the first value in the numeric parts of a target that is not a finite number (JSON turns
 * NaN and ±Infinity into null, so a null where a number belongs is how they arrive). A model file
 * with one would make every prediction that touches it meaningless.
 */
function firstNonFinite(v: unknown, at: string, key = ''): string | null {
  if (typeof v === 'number') return Number.isFinite(v) ? null : at;
  if (v === null) return NULLABLE.has(key) ? null : at;
  if (Array.isArray(v)) {
    for (const [i, x] of v.entries()) {
      const r = firstNonFinite(x, `${at}[${i}]`, key);
      if (r) return r;
    }
    return null;
  }
  if (typeof v === 'object' && v !== undefined) {
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      if (typeof x === 'string' || typeof x === 'boolean') continue;
      const r = firstNonFinite(x, `${at}.${k}`, k);
      if (r) return r;
    }
  }
  return null;
}

// Shape checks for everything predict and check read, so an edited or corrupted file is a
// finding naming the field rather than a TypeError deep inside the prediction.
const isObject = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isStr = (v: unknown): v is string => typeof v === 'string';
const numbers = (v: unknown) => Array.isArray(v) && v.every(isNum);

function topShapeProblem(m: Partial<PaceModelFile>): string | null {
  if (!isObject(m.data) || !isStr(m.data.matrixSha256) || !isStr(m.data.targetsSha256) || !Array.isArray(m.data.poolModels) || !m.data.poolModels.every(isStr)) return 'data';
  if (!isObject(m.versions) || !Object.values(m.versions).every(isStr)) return 'versions';
  if (!isObject(m.options)) return 'options';
  if (!m.proxy!.every((p) => isObject(p) && isStr(p.key) && isStr(p.task) && (p.doc_hash === undefined || isStr(p.doc_hash)))) return 'proxy';
  if (!Array.isArray(m.skillMap)) return 'skillMap';
  return null;
}

function targetShapeProblem(t: SerializedTarget): string | null {
  if (!isObject(t)) return '';
  if (!isStr(t.target)) return 'target';
  if (!['fraction', 'percent', 'raw'].includes(t.scale)) return 'scale';
  if (!isNum(t.displayFactor)) return 'displayFactor';
  if (!isObject(t.config) || !isNum(t.config.budget)) return 'config';
  if (!t.trainingModels.every((r) => isObject(r) && isStr(r.name) && isNum(r.score) && (r.local === null || numbers(r.local)) && (r.global === null || numbers(r.global)))) return 'trainingModels';
  for (const form of ['linear', 'shipped'] as const) {
    const f = t[form];
    if (!isObject(f) || !isNum(f.intercept) || !Array.isArray(f.weights) || !f.weights.every((w) => isObject(w) && isStr(w.key) && isStr(w.task) && isNum(w.weight))) return form;
  }
  if (t.shipped.weights.some((w) => w.weight < 0) || !(shippedKinds as string[]).includes(t.shipped.kind)) return 'shipped';
  if (!Array.isArray(t.skillMap)) return 'skillMap';
  const c = t.consistency;
  if (c !== undefined && c !== null && (!isObject(c) || !Array.isArray(c.instances) || !c.instances.every(isStr) || !isNum(c.intercept) || !isNum(c.slope) || !isNum(c.threshold) || c.threshold < 0)) return 'consistency';
  for (const side of ['local', 'global'] as const) {
    const p = t[side];
    if (p === null) continue;
    if (!Number.isInteger(p.k) || p.k < 0 || !p.instances.every(isStr) || !p.basis.every(numbers) || !p.proj.every((r) => numbers(r) && r.length === p.k) || !isObject(p.goalA) || !(p.goalB === null || isObject(p.goalB))) return side;
  }
  return null;
}
