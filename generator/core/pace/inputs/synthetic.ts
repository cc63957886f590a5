/**
 * Synthetic data from a known generative model (multidimensional 2PL IRT), for recovery tests
 * and benchmarks: model abilities θ_m ∈ ℝᵈ, source item (a_i, b_i), P(correct) = σ(a_i·θ_m − b_i);
 * targets are agentic-style benchmarks whose items load on a fixed direction of θ, so the true
 * target score of every model is known.
 */
import { Rng } from '../../kernel/rng.js';
import type { ScoreMatrix, TargetTable } from '../../logs/matrix.js';
import { matrixStorage } from '../../kernel/shared-memory.js';

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
  /**
   * Model families (default 1): each family's abilities sit around a centre of its own, drawn
   * with spread `familySpread` (default 1.5 within-family standard deviations), as model
   * series from different labs do. Models are dealt to families in turn.
   */
  families?: number;
  familySpread?: number;
  /**
   * Targets that need two skills at once: the ability a target item reads is a smooth minimum
   * of two directions in ability space, not one direction, so the target is a non-linear
   * function of the abilities that no linear map of source scores reproduces.
   */
  nonlinearTargets?: boolean;
  /** Share of (model, task) blocks never run (unobserved source cells), e.g. 0.05. */
  missingShare?: number;
}

export interface SyntheticData {
  matrix: ScoreMatrix;
  targets: TargetTable[];
  /** Expected target score (probability scale) per target per model: the noise-free truth. */
  expected: Record<string, number[]>;
  theta: Float64Array;
  /** Each model's family (0 when the population has one). */
  family: number[];
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
  const families = Math.max(1, Math.floor(spec.families ?? 1));
  const familyOf = (m: number) => m % families;
  if (families > 1) {
    // Separate streams: a population without families draws exactly what it drew before.
    const familyRng = rng.fork('families');
    const spread = spec.familySpread ?? 1.5;
    const centres = Float64Array.from({ length: families * d }, () => spread * familyRng.normal());
    for (let m = 0; m < n; m++) for (let j = 0; j < d; j++) theta[m * d + j] = (theta[m * d + j] as number) + (centres[familyOf(m) * d + j] as number);
  }
  // Shared memory when large: the kernel thread reads the matrix in place (pace/numerics/kernel-thread.ts).
  const values = matrixStorage(n * S);
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
  const observed = new Uint8Array(n * S).fill(1);
  if (spec.missingShare && spec.missingShare > 0) {
    const missingRng = rng.fork('missing');
    for (let m = 0; m < n; m++) {
      for (let task = 0; task < T; task++) {
        if (missingRng.next() >= spec.missingShare) continue;
        for (let s = task; s < S; s += T) {
          observed[m * S + s] = 0;
          values[m * S + s] = 0;
        }
      }
    }
  }
  const models = Array.from({ length: n }, (_, m) => ({ name: `model-${String(m).padStart(4, '0')}`, sources: [`synthetic/${m}`] }));
  const targets: TargetTable[] = [];
  const expected: Record<string, number[]> = {};
  const targetRng = rng.fork('targets');
  const secondRng = rng.fork('second-skill');
  for (let t = 0; t < nTargets; t++) {
    const dir = Float64Array.from({ length: d }, () => Math.abs(targetRng.normal()) + 0.2);
    // The second skill loads mostly on other dimensions than the first.
    const second = spec.nonlinearTargets ? Float64Array.from({ length: d }, (_, j) => (j % 2 === t % 2 ? 0.1 : 1) * (Math.abs(secondRng.normal()) + 0.2)) : null;
    const name = `agentic-${t}`;
    const scores: Record<string, number> = {};
    const perInstance: Record<string, Record<string, number>> = {};
    const exp: number[] = [];
    const items = Array.from({ length: NT }, () => ({ scale: 0.5 + targetRng.next(), b: targetRng.normal() }));
    for (let m = 0; m < n; m++) {
      let ability = 0;
      for (let j = 0; j < d; j++) ability += (dir[j] as number) * (theta[m * d + j] as number);
      ability /= Math.sqrt(d);
      if (second) {
        let other = 0;
        for (let j = 0; j < d; j++) other += (second[j] as number) * (theta[m * d + j] as number);
        other /= Math.sqrt(d);
        // Smooth minimum: strong on one skill and weak on the other scores like the weak one.
        ability = -Math.log(Math.exp(-2 * ability) + Math.exp(-2 * other)) / 2;
      }
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
    matrix: { models, instances, values, observed, provenance: { synthetic: spec } },
    targets,
    expected,
    theta,
    family: models.map((_, m) => familyOf(m)),
  };
}
