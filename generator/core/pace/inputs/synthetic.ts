/**
 * Synthetic data from a known generative model (multidimensional 2PL IRT), for recovery tests
 * and benchmarks: model abilities θ_m ∈ ℝᵈ, source item (a_i, b_i), P(correct) = σ(a_i·θ_m − b_i);
 * targets are agentic-style benchmarks whose items load on a fixed direction of θ, so the true
 * target score of every model is known.
 */
import { Rng } from '../../kernel/rng.js';
import type { ScoreMatrix, TargetTable } from '../../logs/matrix.js';

export interface SyntheticSpec {
  models: number;
  instances: number;
  tasks?: number;
  dims?: number;
  targets?: number;
  targetInstances?: number;
  seed?: string;
  /** Source items that are binary (the rest are graded scores in [0,1]). */
  binaryShare?: number;
  /** Skip per-instance target outcomes (aggregate scores only). */
  aggregateOnly?: boolean;
}

export interface SyntheticData {
  matrix: ScoreMatrix;
  targets: TargetTable[];
  /** Expected target score (probability scale) per target per model: the noise-free truth. */
  expected: Record<string, number[]>;
  theta: Float64Array;
}

const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));

export function syntheticPace(spec: SyntheticSpec): SyntheticData {
  const rng = new Rng(spec.seed ?? 'synthetic');
  const n = spec.models;
  const S = spec.instances;
  const d = spec.dims ?? 4;
  const T = spec.tasks ?? 6;
  const nTargets = spec.targets ?? 2;
  const NT = spec.targetInstances ?? 200;
  const binaryShare = spec.binaryShare ?? 0.8;
  const theta = new Float64Array(n * d);
  const thetaRng = rng.fork('theta');
  for (let i = 0; i < n * d; i++) theta[i] = thetaRng.normal();
  const values = new Float64Array(n * S);
  const itemRng = rng.fork('items');
  const drawRng = rng.fork('draws');
  const a = new Float64Array(d);
  const instances = [];
  for (let s = 0; s < S; s++) {
    const task = s % T;
    // Each task loads mostly on one ability dimension, like a benchmark measuring one skill.
    for (let j = 0; j < d; j++) a[j] = (j === task % d ? 1.5 : 0.3) * Math.abs(itemRng.normal()) + 0.1;
    const b = itemRng.normal();
    const binary = itemRng.next() < binaryShare;
    for (let m = 0; m < n; m++) {
      let z = -b;
      for (let j = 0; j < d; j++) z += (a[j] as number) * (theta[m * d + j] as number);
      const p = sigmoid(z);
      values[m * S + s] = binary ? (drawRng.next() < p ? 1 : 0) : Math.round(p * 20) / 20;
    }
    instances.push({ key: `task${task}/${Math.floor(s / T)}`, task: `task${task}`, doc_id: String(Math.floor(s / T)), metric: 'acc' });
  }
  const models = Array.from({ length: n }, (_, m) => ({ name: `model-${String(m).padStart(4, '0')}`, sources: [`synthetic/${m}`] }));
  const targets: TargetTable[] = [];
  const expected: Record<string, number[]> = {};
  const targetRng = rng.fork('targets');
  for (let t = 0; t < nTargets; t++) {
    const dir = Float64Array.from({ length: d }, () => Math.abs(targetRng.normal()) + 0.2);
    const name = `agentic-${t}`;
    const scores: Record<string, number> = {};
    const perInstance: Record<string, Record<string, number>> = {};
    const exp: number[] = [];
    const items = Array.from({ length: NT }, () => ({ scale: 0.5 + targetRng.next(), b: targetRng.normal() }));
    for (let m = 0; m < n; m++) {
      let ability = 0;
      for (let j = 0; j < d; j++) ability += (dir[j] as number) * (theta[m * d + j] as number);
      ability /= Math.sqrt(d);
      let sumP = 0;
      let solved = 0;
      const row: Record<string, number> = {};
      items.forEach((it, i) => {
        const p = sigmoid(it.scale * ability - it.b);
        sumP += p;
        const o = drawRng.next() < p ? 1 : 0;
        solved += o;
        row[`t${t}-${String(i).padStart(4, '0')}`] = o;
      });
      exp.push(sumP / NT);
      scores[models[m]!.name] = (100 * solved) / NT;
      perInstance[models[m]!.name] = row;
    }
    expected[name] = exp;
    targets.push({ target: name, scores, scale: 'percent', ...(spec.aggregateOnly ? {} : { perInstance }), provenance: { synthetic: true } });
  }
  return {
    matrix: { models, instances, values, observed: new Uint8Array(n * S).fill(1), provenance: { synthetic: spec } },
    targets,
    expected,
    theta,
  };
}
