/**
 * Every numerical step against numpy / scipy / scikit-learn, computed in the same run on the
 * same inputs (one batched Python call).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { Rng } from '../../generator/core/kernel/rng.js';
import { averageRanks, pearson, spearman } from '../../generator/core/pace/numerics/rank.js';
import { columnSpearman } from '../../generator/core/pace/numerics/column-spearman.js';
import { leastSquares, symmetricEigen } from '../../generator/core/pace/numerics/linalg.js';
import { topSvd } from '../../generator/core/pace/numerics/svd.js';
import { range } from '../../generator/core/pace/numerics/kernels.js';
import { embedPartial, embedViewRow, globalEmbedding, localEmbedding } from '../../generator/core/pace/embedding/embed.js';
import { fitBradleyTerry, pairCounts } from '../../generator/core/pace/predictors/bradley-terry.js';
import { kernelRidge } from '../../generator/core/pace/numerics/kernel-ridge.js';
import { lassoFit } from '../../generator/core/pace/predictors/lasso.js';
import { absoluteMetrics } from '../../generator/core/pace/evaluation/metrics.js';
import { fitGoalA, poolStats, pooledSpearman } from '../../generator/core/pace/predictors/goal-a.js';
import { gramRows } from '../../generator/core/pace/numerics/kernels.js';
import { runReference, skipPython } from './reference.js';
import { loadDense } from '../../generator/core/pace/numerics/dense.js';

const rng = new Rng('numerics');
const normal = (n: number, r = rng) => Array.from({ length: n }, () => r.normal());
const binary = (n: number, p = 0.5) => Array.from({ length: n }, () => (rng.next() < p ? 1 : 0));
const graded = (n: number) => Array.from({ length: n }, () => Math.round(rng.next() * 4) / 4);

// Inputs (ties on purpose: binary and quarter-step scores, like real per-instance data).
const tiesA = graded(40);
const tiesB = [...graded(39), 0.5];
const small = { n: 11, cols: 300 };
const wide = { n: 60, cols: 500 };
const smallX = Array.from({ length: small.n * small.cols }, (_, i) => (i % small.cols === 7 ? 1 : rng.next() < 0.5 ? 1 : rng.next() < 0.3 ? 0.5 : 0));
const wideX = binary(wide.n * wide.cols, 0.4);
// Continuous scores (every value distinct): the sorting path of the wide column Spearman.
const wideContinuousX = normal(wide.n * wide.cols);
const smallY = normal(small.n);
const wideY = normal(wide.n);
// Low-rank-plus-noise matrix for the SVD (4 strong factors).
const svdShape = { n: 160, cols: 800 };
const factors = { a: normal(svdShape.n * 4), b: normal(svdShape.cols * 4) };
const svdX = Array.from({ length: svdShape.n * svdShape.cols }, (_, i) => {
  const r = Math.floor(i / svdShape.cols);
  const c = i % svdShape.cols;
  let s = 0;
  for (let k = 0; k < 4; k++) s += (factors.a[r * 4 + k] as number) * (factors.b[c * 4 + k] as number) * (5 - k);
  return s + 0.1 * rng.normal();
});
// Bradley–Terry data: 9 models, 3-dim embeddings, 20 bootstrap replicates with ties.
const bt = { n: 9, k: 3, B: 20 };
const btU = normal(bt.n * bt.k);
const btY = Array.from({ length: bt.n * bt.B }, (_, i) => Math.round((0.3 * Math.floor(i / bt.B) + rng.normal()) * 2) / 2);
// Ridge / lasso data: 14 training models, 400 features.
const reg = { n: 15, p: 400 };
const regX = graded(reg.n * reg.p);
const regY = Array.from({ length: reg.n }, (_, i) => regX.slice(i * reg.p, i * reg.p + 10).reduce((a, b) => a + b, 0) / 10 + 0.05 * rng.normal());

const script = String.raw`
import json, sys
import numpy as np
from scipy import stats
from sklearn.linear_model import LogisticRegression, Ridge, Lasso
from sklearn.metrics import r2_score, mean_absolute_error
d = json.load(sys.stdin)
out = {}
a, b = np.array(d['tiesA']), np.array(d['tiesB'])
out['rankA'] = stats.rankdata(a).tolist()
out['spearman'] = stats.spearmanr(a, b).statistic
out['pearson'] = stats.pearsonr(a, b).statistic
def colsp(X, n, c, y):
    X = np.array(X).reshape(n, c)
    res = []
    for j in range(c):
        col = X[:, j]
        res.append(None if np.all(col == col[0]) else float(stats.spearmanr(col, y).statistic))
    return res
out['colSmall'] = colsp(d['smallX'], d['small']['n'], d['small']['cols'], d['smallY'])
out['colWide'] = colsp(d['wideX'], d['wide']['n'], d['wide']['cols'], d['wideY'])
out['colWideContinuous'] = colsp(d['wideContinuousX'], d['wide']['n'], d['wide']['cols'], d['wideY'])
X = np.array(d['svdX']).reshape(d['svdShape']['n'], d['svdShape']['cols'])
U, S, Vt = np.linalg.svd(X, full_matrices=False)
out['sv'] = S[:6].tolist()
out['V'] = Vt[:6].T.tolist()
out['U'] = U[:, :6].tolist()
Un, Sn, Vnt = np.linalg.svd(X[:, :40], full_matrices=False)
out['svNarrow'] = Sn[:5].tolist(); out['VNarrow'] = Vnt[:5].T.tolist()
# Local embedding: SVD of training rows on selected columns, projection of a held-out row.
Xs = np.array(d['smallX']).reshape(d['small']['n'], d['small']['cols'])
H = d['H']; tr = list(range(d['small']['n'] - 1))
Uw, Sw, Vwt = np.linalg.svd(Xs[np.ix_(tr, H)], full_matrices=False)
k = 3
out['localTrain'] = Uw[:, :k].tolist()
out['localTest'] = (Xs[-1, H] @ Vwt[:k].T / Sw[:k]).tolist()
# Global embedding: least-squares coordinates X[:, D] @ pinv(V[D, :nc]).T.
Vsel = Vt[:4].T[d['D'], :]
out['globalCoords'] = (X[:5][:, d['D']] @ np.linalg.pinv(Vsel).T).tolist()
# Least squares with missing rows: lstsq on the observed subset.
obs = d['obs']
out['partial'] = np.linalg.lstsq(Vsel[obs], X[0, d['D']][obs], rcond=None)[0].tolist()
# Bradley-Terry as explicit logistic rows (ordered pairs x replicates, ties dropped).
u = np.array(d['btU']).reshape(d['bt']['n'], d['bt']['k']); Y = np.array(d['btY']).reshape(d['bt']['n'], d['bt']['B'])
rows, labels = [], []
for i in range(d['bt']['n']):
    for j in range(d['bt']['n']):
        if i == j: continue
        for bb in range(d['bt']['B']):
            if Y[i, bb] == Y[j, bb]: continue
            rows.append(u[i] - u[j]); labels.append(1 if Y[i, bb] > Y[j, bb] else 0)
N = len(rows)
lr = LogisticRegression(C=1.0 / (N * d['alpha']), fit_intercept=False, tol=1e-12, max_iter=100000)
lr.fit(np.array(rows), np.array(labels))
out['btW'] = lr.coef_[0].tolist(); out['btN'] = N
# Ridge and lasso on training rows, prediction for the last row.
R = np.array(d['regX']).reshape(d['reg']['n'], d['reg']['p']); ry = np.array(d['regY'])
rd = Ridge(alpha=d['ridgeAlpha']).fit(R[:-1], ry[:-1])
out['ridge'] = float(rd.predict(R[-1:])[0])
ls = Lasso(alpha=d['lassoAlpha'], tol=1e-12, max_iter=1000000).fit(R[:-1], ry[:-1])
out['lassoW'] = ls.coef_.tolist(); out['lassoB'] = float(ls.intercept_)
t, p = np.array(d['truth']), np.array(d['pred'])
out['mae'] = mean_absolute_error(t, p); out['r2'] = r2_score(t, p)
out['mSpearman'] = stats.spearmanr(t, p).statistic; out['mPearson'] = stats.pearsonr(t, p).statistic
# Goal A on the explicit bootstrap pool (embedding tiled B times).
pool_x = np.repeat(np.array(d['gaX']), d['bt']['B'])
pool_y = Y.reshape(-1)
out['pooledSpearman'] = stats.spearmanr(pool_x, pool_y).statistic
out['pooledOls'] = np.polyfit(pool_x, pool_y, 1).tolist()
w, vecs = np.linalg.eigh(np.array(d['sym']).reshape(d['symN'], d['symN']))
out['eigVals'] = w[::-1].tolist(); out['eigVecs'] = vecs[:, ::-1].T.tolist()
print(json.dumps(out))
`;

const H = [3, 17, 40, 41, 90, 120, 121, 200, 250, 299, 5, 6];
const D = Array.from({ length: 30 }, (_, i) => i * 7 + 2);
const obs = D.map((_, i) => i).filter((i) => i % 4 !== 1);
const ridgeAlpha = 3.5;
const lassoAlpha = 0.004;
const alpha = 0.1;
const truth = normal(12);
const pred = truth.map((t) => t + 0.4 * rng.normal());
const gaX = normal(bt.n);
const symN = 17;
const sym = (() => {
  const m = normal(symN * symN);
  const out = new Array<number>(symN * symN);
  for (let i = 0; i < symN; i++) for (let j = 0; j < symN; j++) out[i * symN + j] = (m[i * symN + j] as number) + (m[j * symN + i] as number);
  return out;
})();

let ref: any;
const close = (a: number, b: number, tol: number) => expect(Math.abs(a - b), `${a} vs ${b}`).toBeLessThanOrEqual(tol);

describe.skipIf(skipPython)('numerics against numpy / scipy / scikit-learn', () => {
  beforeAll(async () => {
    await loadDense();
    ref = runReference(script, {
      tiesA, tiesB, small, smallX, smallY, wide, wideX, wideY, wideContinuousX, svdShape, svdX, H, D, obs, bt, btU, btY, alpha, reg, regX, regY, ridgeAlpha, lassoAlpha, truth, pred, gaX, sym, symN,
    });
  }, 120_000);

  it('ranks with ties and Spearman/Pearson match scipy', () => {
    expect(Array.from(averageRanks(tiesA))).toEqual(ref.rankA);
    close(spearman(tiesA, tiesB), ref.spearman, 1e-12);
    close(pearson(tiesA, tiesB), ref.pearson, 1e-12);
  });

  it('column Spearman matches scipy on every code path (insertion sort; counts for few distinct values; sort + binary search), NaN for constant columns', () => {
    for (const [shape, X, y, expected] of [
      [small, smallX, smallY, ref.colSmall],
      [wide, wideX, wideY, ref.colWide],
      [wide, wideContinuousX, wideY, ref.colWideContinuous],
    ] as const) {
      const got = columnSpearman({ data: Float64Array.from(X), stride: shape.cols, rows: range(shape.n), cols: null }, y);
      let constants = 0;
      (expected as Array<number | null>).forEach((e, j) => {
        if (e === null) {
          constants++;
          expect(Number.isNaN(got[j] as number)).toBe(true);
        } else close(got[j] as number, e, 1e-12);
      });
      expect(got.length).toBe(shape.cols);
      if (shape === small) expect(constants).toBeGreaterThanOrEqual(1);
    }
  });

  it('top singular values and subspaces match numpy on the Gram route and the randomized route', () => {
    const view = { data: Float64Array.from(svdX), stride: svdShape.cols, rows: range(svdShape.n), cols: null };
    const routes = [topSvd(view, 6, { gramMaxRows: 10_000 }), topSvd(view, 6, { gramMaxRows: 10, rng: new Rng('rsvd') })];
    expect(routes.map((r) => r.method)).toEqual(['gram', 'randomized']);
    for (const svd of routes) {
      expect(svd.k).toBe(6);
      // The 4 planted factors are well separated: compare values and vectors up to sign.
      for (let j = 0; j < 4; j++) {
        close(svd.singularValues[j] as number, ref.sv[j], (svd.method === 'gram' ? 1e-8 : 1e-6) * ref.sv[0]);
        let dotV = 0;
        for (let c = 0; c < svdShape.cols; c++) dotV += (svd.v[c * svd.k + j] as number) * ref.V[c][j];
        let dotU = 0;
        for (let r = 0; r < svdShape.n; r++) dotU += (svd.u[r * svd.k + j] as number) * ref.U[r][j];
        close(Math.abs(dotV), 1, 1e-8);
        close(Math.abs(dotU), 1, 1e-8);
      }
    }
  });

  it('a tall, narrow view (many models × few selected instances) goes through the column Gram and matches numpy', () => {
    const view = { data: Float64Array.from(svdX), stride: svdShape.cols, rows: range(svdShape.n), cols: range(40) };
    const svd = topSvd(view, 5);
    expect(svd.k).toBe(5);
    for (let j = 0; j < 4; j++) {
      close(svd.singularValues[j] as number, ref.svNarrow[j], 1e-9 * ref.svNarrow[0]);
      let dot = 0;
      for (let c = 0; c < 40; c++) dot += (svd.v[c * svd.k + j] as number) * ref.VNarrow[c][j];
      close(Math.abs(dot), 1, 1e-8);
    }
  });

  it('local embedding (training U and projected held-out model) matches numpy up to column signs', () => {
    const view = { data: Float64Array.from(smallX), stride: small.cols, rows: range(small.n), cols: null };
    const train = range(small.n - 1);
    const e = localEmbedding(view, train, Int32Array.from(H), 3);
    expect(e.k).toBe(3);
    for (let j = 0; j < 3; j++) {
      const sign = Math.sign(embedViewRow(view, 0, e)[j] as number) * Math.sign(ref.localTrain[0][j]);
      for (let r = 0; r < small.n - 1; r++) close((embedViewRow(view, r, e)[j] as number) * sign, ref.localTrain[r][j], 1e-9);
      close((embedViewRow(view, small.n - 1, e)[j] as number) * sign, ref.localTest[j], 1e-9);
    }
  });

  it('global embedding = least-squares coordinates X[:,D]·pinv(V_D)ᵀ, and the partial (missing-value) fit = lstsq on observed rows', () => {
    const view = { data: Float64Array.from(svdX), stride: svdShape.cols, rows: range(svdShape.n), cols: null };
    const svd = topSvd(view, 6, { gramMaxRows: 10_000 });
    const e = globalEmbedding(svd.v, svd.k, Int32Array.from(D), 4);
    // Our V may differ from numpy's by column signs; coordinates flip with them.
    const signs = [0, 1, 2, 3].map((j) => {
      let dot = 0;
      for (let c = 0; c < svdShape.cols; c++) dot += (svd.v[c * svd.k + j] as number) * ref.V[c][j];
      return Math.sign(dot);
    });
    for (let r = 0; r < 5; r++) {
      const u = embedViewRow(view, r, e);
      for (let j = 0; j < 4; j++) close((u[j] as number) * (signs[j] as number), ref.globalCoords[r][j], 1e-8);
    }
    const x = Float64Array.from(D, (c, i) => (obs.includes(i) ? (svdX[c] as number) : NaN));
    const partial = embedPartial(x, e)!;
    for (let j = 0; j < 4; j++) close((partial[j] as number) * (signs[j] as number), ref.partial[j], 1e-8);
  });

  it('Bradley–Terry (mean BCE + α/2‖w‖², no intercept) matches sklearn LogisticRegression with C = 1/(Nα)', () => {
    const pairs = pairCounts(Float64Array.from(btY), bt.n, bt.B);
    const fit = fitBradleyTerry(Float64Array.from(btU), bt.k, pairs, alpha);
    expect(fit.rows).toBe(ref.btN);
    expect(fit.gradientNorm).toBeLessThan(1e-10);
    fit.w.forEach((w, j) => close(w, ref.btW[j], 1e-6));
  });

  it('ridge in dual form equals sklearn Ridge; lasso coordinate descent equals sklearn Lasso', () => {
    const gram = gramRows({ data: Float64Array.from(regX), stride: reg.p, rows: range(reg.n), cols: null });
    const train = range(reg.n - 1);
    const r = kernelRidge(gram, reg.n, train, reg.n - 1, Float64Array.from(regY.slice(0, -1)), ridgeAlpha);
    close(r.prediction, ref.ridge, 1e-9);
    const colMajor = new Float64Array(reg.p * (reg.n - 1));
    for (let i = 0; i < reg.n - 1; i++) for (let j = 0; j < reg.p; j++) colMajor[j * (reg.n - 1) + i] = regX[i * reg.p + j] as number;
    const l = lassoFit(colMajor, reg.n - 1, reg.p, Float64Array.from(regY.slice(0, -1)), lassoAlpha, 1e-13, 100000);
    let nonzero = 0;
    l.weights.forEach((w, j) => {
      close(w, ref.lassoW[j], 1e-7);
      if (w !== 0) nonzero++;
    });
    expect(nonzero).toBeGreaterThan(0);
    expect(nonzero).toBeLessThan(reg.p);
    close(l.intercept, ref.lassoB, 1e-7);
  });

  it('metrics match sklearn / scipy', () => {
    const m = absoluteMetrics(truth, pred);
    close(m.mae, ref.mae, 1e-12);
    close(m.r2, ref.r2, 1e-12);
    close(m.spearman, ref.mSpearman, 1e-12);
    close(m.pearson, ref.mPearson, 1e-12);
  });

  it('Goal A pooled Spearman and pooled OLS equal scipy/numpy on the explicitly tiled bootstrap pool', () => {
    const stats = poolStats(new Float64Array(bt.n), Float64Array.from(btY), bt.B);
    close(pooledSpearman(gaX, stats), ref.pooledSpearman, 1e-12);
    const fit = fitGoalA(Float64Array.from(gaX), 1, stats);
    // One dimension: w = ±1, so x = sign(ρ)·gaX.
    const sign = Math.sign(fit.weights[0] as number);
    close(fit.slope * sign, ref.pooledOls[0], 1e-10);
    close(fit.intercept, ref.pooledOls[1], 1e-10);
  });

  it('the Jacobi eigensolver matches numpy.linalg.eigh (values, and vectors up to sign)', () => {
    const { values, vectors } = symmetricEigen(Float64Array.from(sym), symN);
    for (let j = 0; j < symN; j++) {
      close(values[j] as number, ref.eigVals[j], 1e-10);
      let dot = 0;
      for (let i = 0; i < symN; i++) dot += (vectors[i * symN + j] as number) * ref.eigVecs[j][i];
      close(Math.abs(dot), 1, 1e-9);
    }
  });

  it('leastSquares matches numpy lstsq on a small full-rank system', () => {
    const a = Float64Array.from(normal(20 * 3));
    const b = Float64Array.from(normal(20));
    const x = leastSquares(a, 20, 3, b);
    // Normal equations residual orthogonality: Aᵀ(Ax − b) = 0.
    for (let p = 0; p < 3; p++) {
      let g = 0;
      for (let i = 0; i < 20; i++) {
        let ax = 0;
        for (let q = 0; q < 3; q++) ax += (a[i * 3 + q] as number) * (x[q] as number);
        g += (a[i * 3 + p] as number) * (ax - (b[i] as number));
      }
      close(g, 0, 1e-10);
    }
  });
});
