/**
 * Bootstrap over target instances (PACE's `bootstrap.py`): resample the target's instances
 * with replacement and recompute each model's score, which models label noise in the target.
 * Models are not resampled.
 */
import type { Rng } from '../../kernel/rng.js';

/**
 * Returns rows × B replicates. Each replicate is centred on the reported aggregate:
 * y⁽ᵇ⁾ = y + (mean on the resample − mean on all instances). The reported score may use a
 * different denominator than the per-instance file (e.g. SWE-bench Multimodal's
 * "solveable_accuracy"), and centring keeps the truth the evaluation uses while carrying the
 * instance-sampling noise. Instances a model lacks are skipped in its means, never scored 0.
 */
export function bootstrapTargets(
  y: Float64Array,
  perInstance: Array<Record<string, number> | undefined>,
  replicates: number,
  rng: Rng,
  scaleOfOutcomes: number,
): { yBoot: Float64Array | null; instanceCount: number } {
  const ids = new Set<string>();
  for (const row of perInstance) if (row) for (const id of Object.keys(row)) ids.add(id);
  const sortedIds = [...ids].sort();
  const n = y.length;
  if (replicates <= 0 || sortedIds.length === 0 || perInstance.some((r) => !r)) return { yBoot: null, instanceCount: sortedIds.length };
  const N = sortedIds.length;
  const outcome = new Float64Array(n * N).fill(NaN);
  const fullMean = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const row = perInstance[i] as Record<string, number>;
    let s = 0;
    let c = 0;
    sortedIds.forEach((id, j) => {
      const v = row[id];
      if (v === undefined || !Number.isFinite(v)) return;
      outcome[i * N + j] = v * scaleOfOutcomes;
      s += v * scaleOfOutcomes;
      c++;
    });
    fullMean[i] = c ? s / c : NaN;
  }
  const yBoot = new Float64Array(n * replicates);
  const draw = rng.fork('target-bootstrap');
  const sample = new Int32Array(N);
  for (let b = 0; b < replicates; b++) {
    for (let t = 0; t < N; t++) sample[t] = draw.int(N);
    for (let i = 0; i < n; i++) {
      let s = 0;
      let c = 0;
      for (let t = 0; t < N; t++) {
        const v = outcome[i * N + (sample[t] as number)] as number;
        if (Number.isNaN(v)) continue;
        s += v;
        c++;
      }
      const shift = c && Number.isFinite(fullMean[i] as number) ? s / c - (fullMean[i] as number) : 0;
      yBoot[i * replicates + b] = (y[i] as number) + shift;
    }
  }
  return { yBoot, instanceCount: N };
}
