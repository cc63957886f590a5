/**
 * One PACE fold against an independent numpy/scipy implementation, on the real shared PACE data
 * where the pool (13 models) is a subset of the matrix (19 source models) and the selectable
 * instances are a subset of its columns: every index must go through the view. For every fold
 * of every target (frozen C=100 settings, no bootstrap) numpy receives the full matrix, the
 * pool's matrix rows, the selectable matrix columns and the targets, and computes relevance,
 * global SVD, selection, both embeddings and Goal A itself.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { nodeVfs } from '../../generator/core/kernel/node-vfs.js';
import { loadPaceInputs } from '../../generator/core/pace/inputs/inputs.js';
import { prepareData } from '../../generator/core/pace/inputs/prepare.js';
import { parseConfigs } from '../../generator/core/pace/settings/config.js';
import { embedViewRow } from '../../generator/core/pace/embedding/embed.js';
import { fitTarget, predictPoolRow, prepareFold } from '../../generator/core/pace/pipeline.js';
import { fallbackConfig, type PaceConfig, type PaceData } from '../../generator/core/pace/types.js';
import { fixtures, hasSharedData, shared } from '../helpers/env.js';
import { runReference, skipPython } from './reference.js';
import { loadDense } from '../../generator/core/pace/numerics/dense.js';

const script = String.raw`
import json, sys
import numpy as np
from scipy.stats import rankdata

d = json.load(sys.stdin)
X = np.array(d['values']).reshape(-1, d['stride'])
pool = np.array(d['poolRows'])          # pool row -> matrix row
cols = np.array(d['cols'])              # selectable column -> matrix column
A = X[np.ix_(pool, cols)]               # pool x selectable, the only cells PACE may read
MAX_GLOBAL = 10

def spearman_columns(M, y):
    # Spearman = Pearson on average ranks; a constant column has no defined correlation.
    R = rankdata(M, axis=0); R = R - R.mean(axis=0)
    ry = rankdata(y); ry = ry - ry.mean()
    num = ry @ R
    den = np.sqrt((R * R).sum(axis=0) * (ry @ ry))
    out = np.full(M.shape[1], np.nan)
    ok = (R * R).sum(axis=0) > 1e-12
    out[ok] = num[ok] / den[ok]
    return np.clip(out, -1, 1)

def spearman(a, b):
    ra, rb = rankdata(a) - (len(a) + 1) / 2, rankdata(b) - (len(b) + 1) / 2
    den = np.sqrt((ra @ ra) * (rb @ rb))
    return np.nan if den == 0 else float(np.clip(ra @ rb / den, -1, 1))

def rank_desc(score):
    # Best first, ties by column order. Identical columns are exact ties, but LAPACK gives them
    # loadings that differ in the last bits; rounding far below any real gap keeps them tied.
    idx = np.flatnonzero(np.isfinite(score))
    top = np.abs(score[idx]).max() if idx.size else 1.0
    key = np.round(score[idx] / (top if top > 0 else 1.0), 11)
    return idx[np.argsort(-key, kind='stable')]

def rank_of(M):
    s = np.linalg.svd(M, compute_uv=False)
    return int((s > s[0] * max(M.shape) * np.finfo(float).eps).sum()) if s.size and s[0] > 0 else 0

def joint_top_c(local, glob, C, q):
    n_local = round(q * C)               # Python rounds half to even, as PACE does
    H = list(local[:n_local]); D = list(glob[:C - n_local])
    chosen = set(H) | set(D)
    li, gi, cl, cg = n_local, C - n_local, 0.0, 0.0
    while len(chosen) < C:
        while li < len(local) and local[li] in chosen: li += 1
        while gi < len(glob) and glob[gi] in chosen: gi += 1
        can_l, can_g = li < len(local) and q > 0, gi < len(glob) and q < 1
        if not (can_l or can_g): break
        cl += q; cg += 1 - q
        if can_l and (not can_g or cl >= cg):
            cl -= 1; H.append(local[li]); chosen.add(local[li])
        else:
            cg -= 1; D.append(glob[gi]); chosen.add(glob[gi])
    return H, D

def tie_grid(c):
    # Coordinates equal in exact arithmetic (e.g. models identical on the selected items) tie.
    top = np.abs(c).max()
    return c if top == 0 else np.round(c / (1e-9 * top))

def goal_a(U, y, u_test):
    rho = np.array([spearman(tie_grid(U[:, c]), y) for c in range(U.shape[1])])
    rho = np.where(np.isfinite(rho), rho, 0.0)
    w = rho / np.abs(rho).sum() if np.abs(rho).sum() > 0 else rho
    x = U @ w
    slope, intercept = np.polyfit(x, y, 1) if np.ptp(x) > 0 else (0.0, y.mean())
    p = intercept + slope * (u_test @ w)
    lo, hi = y.min(), y.max()
    return p if np.isfinite(p) and lo - 2 * (hi - lo) <= p <= hi + 2 * (hi - lo) else y.mean()

out = []
for t in d['targets']:
    rows, y_all, cfg = np.array(t['rows']), np.array(t['y']), t['config']
    C, q, m, ncH, ncD = cfg['budget'], cfg['q'], cfg['m'], cfg['ncH'], cfg['ncD']
    for k in range(len(rows)):
        tr = np.delete(rows, k); y = np.delete(y_all, k); test = rows[k]
        rho = spearman_columns(A[tr], y)
        usable = np.isfinite(rho)
        _, s, Vt = np.linalg.svd(A[tr][:, usable], full_matrices=False)
        kg = min(MAX_GLOBAL, rank_of(A[tr][:, usable]))
        V = np.zeros((A.shape[1], kg)); V[usable] = Vt[:kg].T
        lev = (V[:, :min(ncD, kg)] ** 2).sum(axis=1)
        H, D = joint_top_c(rank_desc(np.abs(rho)), rank_desc(lev * np.abs(rho)), C, q)
        preds, local_test = [], None
        if H:
            XH = A[tr][:, H]
            _, sh, Vht = np.linalg.svd(XH, full_matrices=False)
            kh = min(ncH, rank_of(XH))
            proj = Vht[:kh].T / sh[:kh]
            local_test = (A[test, H] @ proj).tolist()
            preds.append(goal_a(XH @ proj, y, A[test, H] @ proj))
        if D and kg > 0:
            P = np.linalg.pinv(V[D, :min(ncD, kg)]).T
            preds.append(goal_a(A[tr][:, D] @ P, y, A[test, D] @ P))
        mix = m if len(preds) == 2 else 1.0
        value = mix * preds[0] + (1 - mix) * preds[1] if len(preds) == 2 else preds[0]
        out.append({'H': sorted(int(h) for h in H), 'D': sorted(int(x) for x in D), 'value': float(value), 'localTest': local_test})
print(json.dumps(out))
`;

let data: PaceData;
let configs: Record<string, PaceConfig>;

describe.skipIf(!hasSharedData || skipPython)('one PACE fold = numpy, on the shared data’s pool subset (every fold)', () => {
  beforeAll(async () => {
    await loadDense();
    const inputs = await loadPaceInputs(nodeVfs, {
      sources: [shared('pace', 'results', 'standardized_results')],
      targets: [shared('openhands-index', 'results')],
      mapping: fixtures('logs', 'openhands-to-pace-mapping.json'),
      duplicates: 'first',
    });
    data = prepareData(inputs.matrix!, inputs.targets, { bootstrap: 0, seed: '1' }).data!;
    configs = parseConfigs(readFileSync(fixtures('pace', 'pace-frozen-c100.json'), 'utf8')).configs;
  }, 60_000);

  it('selection, held-out local coordinates (up to sign) and the Goal A prediction agree to 1e-9 in all 65 folds', () => {
    const view = data.view;
    const configFor = (t: string) => configs[t] ?? fallbackConfig;
    const ref = runReference(script, {
      values: Array.from(view.data),
      stride: view.stride,
      poolRows: Array.from(view.rows),
      cols: Array.from(view.cols!),
      targets: data.targets.map((t) => ({ rows: Array.from(t.rows), y: Array.from(t.y), config: configFor(t.name) })),
    }) as Array<{ H: number[]; D: number[]; value: number; localTest: number[] | null }>;
    let fold = 0;
    let worstPrediction = 0;
    let worstCoordinate = 0;
    for (const target of data.targets)
      for (let k = 0; k < target.rows.length; k++) {
        const r = ref[fold++]!;
        const trainIdx = Int32Array.from({ length: target.rows.length - 1 }, (_, i) => (i < k ? i : i + 1));
        const basis = prepareFold(data, target, trainIdx, { bootstrap: 0, alpha: 0.1, seed: '1', svdScope: 'fold' }, null);
        const fit = fitTarget(basis, configFor(target.name), null);
        const where = `${target.name}, held out ${data.models[target.rows[k] as number]}`;
        expect([...fit.selection.local].sort((a, b) => a - b), where).toEqual(r.H);
        expect([...fit.selection.global].sort((a, b) => a - b), where).toEqual(r.D);
        const pred = predictPoolRow(basis, fit, target.rows[k] as number);
        worstPrediction = Math.max(worstPrediction, Math.abs(pred.value - r.value));
        if (fit.local) {
          const u = embedViewRow(view, target.rows[k] as number, fit.local.embedding);
          expect(u.length, where).toBe(r.localTest!.length);
          u.forEach((x, j) => (worstCoordinate = Math.max(worstCoordinate, Math.abs(Math.abs(x) - Math.abs(r.localTest![j] as number)))));
        }
      }
    expect(fold).toBe(65);
    expect(worstPrediction).toBeLessThan(1e-9);
    expect(worstCoordinate).toBeLessThan(1e-9);
    console.log(`numpy agreement on shared data, 65 folds: prediction ${worstPrediction.toExponential(2)}, local coordinates ${worstCoordinate.toExponential(2)}`);
  }, 120_000);
});
