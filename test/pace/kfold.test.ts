/**
 * The K-fold protocol (evaluation/folds.ts): which loops become K-fold, how models are dealt,
 * and an outer K-fold run checked against scikit-learn on the same fold assignment.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { syntheticPace } from '../../generator/core/pace/inputs/synthetic.js';
import { prepareData } from '../../generator/core/pace/inputs/prepare.js';
import { runLoocv } from '../../generator/core/pace/evaluation/loocv.js';
import { defaultFoldProtocol, foldMembers, hashFolds, planFolds } from '../../generator/core/pace/evaluation/folds.js';
import { renderLoocvTable } from '../../generator/core/pace/evaluation/report.js';
import { loadDense } from '../../generator/core/pace/numerics/dense.js';
import type { PaceData } from '../../generator/core/pace/types.js';
import { runReference, skipPython } from './reference.js';

const names = (n: number, prefix = 'model') => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);

describe('fold plans', () => {
  it('leave-one-out up to 50 models, 10 folds by name hash above', () => {
    expect(defaultFoldProtocol).toEqual({ leaveOneOutUpTo: 50, folds: 10 });
    const loo = planFolds(names(50), 'inner');
    expect(loo.kind).toBe('leave-one-out');
    expect(Array.from(loo.foldOf)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    const k = planFolds(names(51), 'inner');
    expect(k.kind).toBe('k-fold');
    expect(k.folds).toBe(10);
    expect(Array.from(k.foldOf).every((f) => f >= 0 && f < 10)).toBe(true);
    // Forced either way, whatever the size.
    expect(planFolds(names(500), 'outer', defaultFoldProtocol, 'leave-one-out').kind).toBe('leave-one-out');
    expect(planFolds(names(20), 'outer', defaultFoldProtocol, 5)).toMatchObject({ kind: 'k-fold', folds: 5 });
  });

  it('a model keeps its fold when unrelated models are added or removed, and the deal does not depend on order', () => {
    const base = names(300);
    const before = hashFolds(base, 'outer', 10);
    const grown = [...names(40, 'new'), ...base.slice().reverse()];
    const after = hashFolds(grown, 'outer', 10);
    base.forEach((name, i) => expect(after[grown.indexOf(name)], name).toBe(before[i]));
  });

  it('spreads 500 names evenly, and deals the outer and inner loops independently', () => {
    const outer = planFolds(names(500), 'outer');
    const sizes = foldMembers(outer).map((m) => m.length);
    expect(sizes).toHaveLength(10);
    // Binomial(500, 0.1): mean 50, sd 6.7.
    for (const s of sizes) expect(s).toBeGreaterThan(30), expect(s).toBeLessThan(70);
    const inner = planFolds(names(500), 'inner');
    const same = Array.from(outer.foldOf).filter((f, i) => f === inner.foldOf[i]).length;
    expect(same).toBeLessThan(100);
  });
});

describe.skipIf(skipPython)('outer K-fold against scikit-learn on the same folds', () => {
  let data: PaceData;
  beforeAll(async () => {
    await loadDense();
    const syn = syntheticPace({ models: 24, instances: 400, tasks: 4, dims: 2, targets: 1, targetInstances: 80, seed: 'k-fold' });
    data = prepareData(syn.matrix, syn.targets, { bootstrap: 0, seed: '3' }).data!;
  });

  it('ridge (penalty chosen by inner leave-one-out), kNN, OLS on the overall mean and lasso on benchmark means equal cross_val_predict with a PredefinedSplit', async () => {
    const protocol = { leaveOneOutUpTo: 10, folds: 4 };
    const rows = ['ridge-all', 'knn-models', 'overall-mean-ols', 'benchmark-means-lasso'] as const;
    const report = await runLoocv(data, { bootstrap: 0, alpha: 0.1, seed: '3', svdScope: 'fold', frozen: {}, nested: null, baselines: [...rows], budgetCurve: [], coverage: false, foldProtocol: protocol });
    const t = report.targets[0]!;
    expect(t.protocol.outer).toEqual({ kind: 'k-fold', folds: foldMembers(planFolds(t.models, 'outer', protocol)).length, evaluated: foldMembers(planFolds(t.models, 'outer', protocol)).length });
    expect(renderLoocvTable(report)).toContain('Protocol: outer 4-fold over models (dealt by a hash of the model name)');
    const foldOf = Array.from(planFolds(t.models, 'outer', protocol).foldOf);
    const target = data.targets[0]!;
    const view = data.view;
    const X = Array.from(target.rows, (r) => Array.from({ length: view.cols ? view.cols.length : view.stride }, (_, c) => view.data[(view.rows[r] as number) * view.stride + (view.cols ? (view.cols[c] as number) : c)] as number));
    const ref = runReference(
      `import json,sys,numpy as np
from sklearn.model_selection import PredefinedSplit, cross_val_predict
from sklearn.neighbors import KNeighborsRegressor
from sklearn.linear_model import LinearRegression, Lasso, RidgeCV
from sklearn.base import BaseEstimator, RegressorMixin
d=json.load(sys.stdin); X=np.array(d['X']); y=np.array(d['y']); tasks=np.array(d['tasks'])
split=PredefinedSplit(np.array(d['fold']))
class ScaledRidgeCV(BaseEstimator, RegressorMixin):
    # aptpace's grid: trace of the centred training Gram / n × 10^e, e = -3, -2.5, ..., 3; leave-one-out MSE picks.
    def fit(self, X, y):
        Xc = X - X.mean(0); scale = (Xc * Xc).sum() / len(y)
        self.m_ = RidgeCV(alphas=scale * 10.0 ** np.arange(-3, 3.25, 0.5), fit_intercept=True).fit(X, y); return self
    def predict(self, X): return self.m_.predict(X)
class MeanOLS(BaseEstimator, RegressorMixin):
    def fit(self, X, y): self.m_ = LinearRegression().fit(X.mean(1, keepdims=True), y); return self
    def predict(self, X): return self.m_.predict(X.mean(1, keepdims=True))
class BenchLasso(BaseEstimator, RegressorMixin):
    def feats(self, X): return np.stack([X[:, tasks == t].mean(1) for t in sorted(set(tasks))], 1)
    def fit(self, X, y):
        B = self.feats(X); amax = np.abs((B - B.mean(0)).T @ (y - y.mean())).max() / len(y)
        self.m_ = Lasso(alpha=0.1 * amax, tol=1e-12, max_iter=100000).fit(B, y); return self
    def predict(self, X): return self.m_.predict(self.feats(X))
out = {name: cross_val_predict(est, X, y, cv=split).tolist() for name, est in [('ridge-all', ScaledRidgeCV()), ('knn-models', KNeighborsRegressor(n_neighbors=3)), ('overall-mean-ols', MeanOLS()), ('benchmark-means-lasso', BenchLasso())]}
print(json.dumps(out))`,
      { X, y: Array.from(target.y), tasks: Array.from({ length: X[0]!.length }, (_, c) => data.instances[c]!.task), fold: foldOf },
    );
    for (const name of rows) {
      const ours = t.methods.find((m) => m.method === name)!.predictions;
      ours.forEach((v, k) => expect(v, `${name}, model ${k} (fold ${foldOf[k]})`).toBeCloseTo(ref[name][k], 9));
    }
  });
});
