/**
 * The predictor family: every shippable form is monotone and bounded on random supersets, the
 * forms and the evaluate-only baselines match numpy / scipy / scikit-learn on the same folds,
 * Holm's correction matches its definition, the selection prefers the simpler form, and the
 * verdicts do not move with the seed.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { Rng } from '../../generator/core/kernel/rng.js';
import { syntheticPace } from '../../generator/core/pace/inputs/synthetic.js';
import { prepareData } from '../../generator/core/pace/inputs/prepare.js';
import { fitTarget, prepareFold } from '../../generator/core/pace/pipeline.js';
import { columnLinearForm, clipToBounds, monotoneValue } from '../../generator/core/pace/predictors/monotone.js';
import { shippedForms, shippedKinds } from '../../generator/core/pace/predictors/shipped-family.js';
import { baselines } from '../../generator/core/pace/predictors/baselines.js';
import { nonNegativeLeastSquares } from '../../generator/core/pace/numerics/nnls.js';
import { targetBounds } from '../../generator/core/pace/evaluation/conformal.js';
import { holmAdjust } from '../../generator/core/pace/evaluation/holm.js';
import { signFlipTest, signFlipTests } from '../../generator/core/pace/evaluation/sign-flip.js';
import { chooseShippedKind } from '../../generator/core/pace/evaluation/shipped-selection.js';
import { nestedSearch, runLoocv } from '../../generator/core/pace/evaluation/loocv.js';
import { fitPace } from '../../generator/core/pace/fit.js';
import type { Grid } from '../../generator/core/pace/pipeline.js';
import { renderLoocvTable } from '../../generator/core/pace/evaluation/report.js';
import { loadDense } from '../../generator/core/pace/numerics/dense.js';
import type { PaceConfig, PaceData } from '../../generator/core/pace/types.js';
import { runReference, skipPython } from './reference.js';

const options = { bootstrap: 0, alpha: 0.1, seed: '7', svdScope: 'fold' as const };
const config: PaceConfig = { budget: 40, q: 0.5, m: 0.5, ncH: 2, ncD: 2 };
let data: PaceData;

beforeAll(async () => {
  await loadDense();
  const syn = syntheticPace({ models: 16, instances: 500, tasks: 4, dims: 2, targets: 1, targetInstances: 80, seed: 'family' });
  data = prepareData(syn.matrix, syn.targets, { bootstrap: 0, seed: '7' }).data!;
});

/** A small nested-search grid (`fit --tune`, the shipped-tuned row). */
const tuneGrid: Grid = { budgets: [20, 60], qs: [0.2, 0.8], ms: [0, 1], ncHs: [1, 3], ncDs: [1, 3] };

/** One leave-one-out fold of the first target: its basis, fit and shippable forms (frozen settings, or tuned on the fold's training models). */
function fold(k: number, tuned = false) {
  const target = data.targets[0]!;
  const trainIdx = Int32Array.from({ length: target.rows.length - 1 }, (_, i) => (i < k ? i : i + 1));
  const basis = prepareFold(data, target, trainIdx, options, null, true);
  const fit = fitTarget(basis, tuned ? nestedSearch(data, target, trainIdx, options, tuneGrid, null).config : config, null);
  return { target, trainIdx, basis, fit, forms: shippedForms(basis, fit) };
}

describe('every shippable form is monotone and bounded', () => {
  it('a random superset of proxy items right (gaps filled or kept) never lowers the clipped prediction, and every prediction stays in range', () => {
    const rng = new Rng('supersets');
    let strictlyHigher = 0;
    // Frozen settings, and the settings the nested search tunes on the fold (`fit --tune`).
    for (const [k, tuned] of [[0, false], [5, false], [11, false], [0, true], [7, true]] as const) {
      const { forms, target } = fold(k, tuned);
      const bounds = targetBounds(target.scale);
      for (const kind of shippedKinds) {
        const form = forms[kind];
        expect(form.weights.every((w) => w >= 0), kind).toBe(true);
        const keyOf = new Map(Array.from(form.allCols, (c, i) => [c, i]));
        const value = (x: Float64Array) => {
          const v = monotoneValue(form, (i) => x[keyOf.get(form.cols[i] as number)!] as number, (i) => x[i] as number);
          return v === null ? null : clipToBounds(v, bounds);
        };
        for (let trial = 0; trial < 200; trial++) {
          const x = Float64Array.from(form.allCols, () => (rng.next() < 0.15 ? NaN : rng.next() < 0.5 ? 1 : 0));
          const superset = Float64Array.from(x, (v) => ((Number.isNaN(v) || v === 0) && rng.next() < 0.3 ? 1 : v));
          const a = value(x);
          const b = value(superset);
          if (a === null || b === null) continue;
          expect(b, `${kind}, trial ${trial}`).toBeGreaterThanOrEqual(a - 1e-12);
          for (const v of [a, b]) expect(v >= bounds[0] && v <= bounds[1]).toBe(true);
          if (b > a + 1e-9) strictlyHigher++;
        }
      }
    }
    // The check must be able to fail: the supersets do move the predictions.
    expect(strictlyHigher).toBeGreaterThan(100);
  });
});

describe.skipIf(skipPython)('the family against numpy / scipy / scikit-learn on the same folds', () => {
  it('non-negative least squares equals scipy.optimize.nnls on the centred problem', () => {
    const rng = new Rng('nnls');
    const n = 13;
    const p = 5;
    const x = Float64Array.from({ length: n * p }, () => rng.next());
    const y = Float64Array.from({ length: n }, (_, i) => 2 * (x[0 * n + i] as number) - 3 * (x[1 * n + i] as number) + (x[3 * n + i] as number) + 0.1 * rng.next());
    const ours = nonNegativeLeastSquares(x, n, p, y);
    const ref = runReference(
      `import json,sys,numpy as np
from scipy.optimize import nnls
d=json.load(sys.stdin); n,p=d['n'],d['p']
X=np.array(d['x']).reshape(p,n).T; y=np.array(d['y'])
Xc=X-X.mean(0); w,_=nnls(Xc,y-y.mean(),maxiter=10000)
print(json.dumps({'w':w.tolist(),'b':float(y.mean()-X.mean(0)@w)}))`,
      { n, p, x: Array.from(x), y: Array.from(y) },
    );
    // A negative true coefficient must be clamped, or the test would not exercise the constraint.
    expect(ref.w[1]).toBe(0);
    Array.from(ours.weights).forEach((w, j) => expect(w).toBeCloseTo(ref.w[j], 9));
    expect(ours.intercept).toBeCloseTo(ref.b, 9);
  });

  it('accuracy, benchmark-accuracy, weighted and ensemble forms give numpy’s predictions for every pool row', () => {
    for (const k of [2, 9]) {
      const { basis, fit, forms } = fold(k);
      const linear = columnLinearForm(fit);
      const view = data.view;
      const cols = Array.from(linear.cols);
      const rowOf = (r: number) => cols.map((c) => view.data[(view.rows[r] as number) * view.stride + (view.cols ? (view.cols[c] as number) : c)] as number);
      const all = Array.from(view.rows, (_, r) => rowOf(r));
      const ref = runReference(
        `import json,sys,numpy as np
from scipy.optimize import nnls
d=json.load(sys.stdin)
X=np.array(d['all']); tr=np.array(d['train']); y=np.array(d['y']); tasks=np.array(d['tasks']); w=np.array(d['w'])
def rescale(raw):
    s=X@raw; st=s[tr]; sxy=((st-st.mean())*(y-y.mean())).sum(); sxx=((st-st.mean())**2).sum()
    b=sxy/sxx if sxx>0 and sxy>0 else 0.0
    return y.mean()+b*(s-st.mean())
acc=rescale(np.ones(X.shape[1]))
wt=rescale(np.maximum(w,0))
F=np.stack([X[:,tasks==t].mean(1) for t in sorted(set(tasks))],1); Ft=F[tr]
beta,_=nnls(Ft-Ft.mean(0),y-y.mean(),maxiter=10000)
bench=y.mean()+(F-Ft.mean(0))@beta
print(json.dumps({'accuracy':acc.tolist(),'benchmark-accuracy':bench.tolist(),'weighted':wt.tolist(),'ensemble':((acc+bench+wt)/3).tolist()}))`,
        { all, train: Array.from(basis.trainRows), y: Array.from(basis.yTrain), tasks: cols.map((c) => data.instances[c]!.task), w: Array.from(linear.weights) },
      );
      for (const kind of shippedKinds) {
        const form = forms[kind];
        all.forEach((x, r) => {
          let v = form.intercept;
          form.cols.forEach((c, i) => (v += (form.weights[i] as number) * (x[cols.indexOf(c)] as number)));
          expect(v, `${kind}, fold ${k}, row ${r}`).toBeCloseTo(ref[kind][r], 9);
        });
      }
    }
  });

  it('kNN over models, OLS on the overall source mean and lasso on the benchmark means equal scikit-learn’s leave-one-out predictions', () => {
    const target = data.targets[0]!;
    const n = target.rows.length;
    const cache = new Map<string, unknown>();
    const ours: Record<string, number[]> = { 'knn-models': [], 'overall-mean-ols': [], 'benchmark-means-lasso': [] };
    for (let k = 0; k < n; k++) {
      const trainIdx = Int32Array.from({ length: n - 1 }, (_, i) => (i < k ? i : i + 1));
      const basis = prepareFold(data, target, trainIdx, options, null, true);
      for (const name of ['knn-models', 'overall-mean-ols', 'benchmark-means-lasso'] as const)
        ours[name]!.push(baselines[name].predict({ basis, testRow: target.rows[k] as number, budget: 40, ncH: 2, rng: new Rng('unused'), cache }) as number);
    }
    const view = data.view;
    const X = Array.from(target.rows, (r) => Array.from({ length: view.cols ? view.cols.length : view.stride }, (_, c) => view.data[(view.rows[r] as number) * view.stride + (view.cols ? (view.cols[c] as number) : c)] as number));
    const ref = runReference(
      `import json,sys,numpy as np
from sklearn.neighbors import KNeighborsRegressor
from sklearn.linear_model import LinearRegression, Lasso
d=json.load(sys.stdin); X=np.array(d['X']); y=np.array(d['y']); n=len(y); tasks=np.array(d['tasks'])
B=np.stack([X[:,tasks==t].mean(1) for t in sorted(set(tasks))],1)
knn=[];ols=[];las=[]
for k in range(n):
    tr=[i for i in range(n) if i!=k]
    knn.append(float(KNeighborsRegressor(n_neighbors=3).fit(X[tr],y[tr]).predict(X[[k]])[0]))
    m=X.mean(1,keepdims=True); ols.append(float(LinearRegression().fit(m[tr],y[tr]).predict(m[[k]])[0]))
    Bt=B[tr]; amax=np.abs((Bt-Bt.mean(0)).T@(y[tr]-y[tr].mean())).max()/len(tr)
    las.append(float(Lasso(alpha=0.1*amax,tol=1e-12,max_iter=100000).fit(Bt,y[tr]).predict(B[[k]])[0]))
print(json.dumps({'knn-models':knn,'overall-mean-ols':ols,'benchmark-means-lasso':las}))`,
      { X, y: Array.from(target.y), tasks: Array.from({ length: X[0]!.length }, (_, c) => data.instances[c]!.task) },
    );
    for (const name of ['knn-models', 'overall-mean-ols', 'benchmark-means-lasso']) ours[name]!.forEach((v, k) => expect(v, `${name}, model ${k}`).toBeCloseTo(ref[name][k], 9));
  });

  it('Holm’s adjusted p-values equal the step-down definition computed in numpy', () => {
    const ps = [0.01, 0.04, 0.03, 0.2, 0.005, 0.04, 1];
    const ref = runReference(
      `import json,sys,numpy as np
p=np.array(json.load(sys.stdin)); m=len(p); o=np.argsort(p,kind='stable')
adj=np.minimum(1,np.maximum.accumulate((m-np.arange(m))*p[o])); out=np.empty(m); out[o]=adj
print(json.dumps(out.tolist()))`,
      ps,
    );
    holmAdjust(ps).forEach((p, i) => expect(p).toBeCloseTo(ref[i], 14));
    // By hand: the smallest p is multiplied by 7, and the adjusted values never decrease with p.
    expect(holmAdjust(ps)[4]).toBeCloseTo(0.035, 14);
  });
});

describe('sign-flip tests sharing one stream', () => {
  // 23 models (Monte Carlo), with zeros and ties; p-values of the one-stream-per-test implementation.
  const sets = [
    [0, 0.01, -0.01, 0.04, -0.17, 0, 0.28, -0.14, -0.04, -0.16, 0, 0.41, -0.25, -0.09, -0.37, 0, 0.34, 0.23, -0.34, -0.39, 0, -0.36, 0.37],
    [0, -0.04, 0.35, 0.16, 0.13, 0, -0.12, 0.39, -0.07, 0.03, 0, -0.07, 0.18, -0.35, 0.5, 0, -0.29, -0.01, 0.31, 0.49, 0, 0.16, 0.44],
    [0, 0.55, -0.29, -0.01, -0.01, 0, 0.26, 0.4, 0.16, -0.25, 0, 0.04, 0.01, 0.34, -0.22, 0, -0.28, 0.17, 0.03, 0.33, 0, 0.21, -0.09],
  ];
  const golden = [
    [0.2889671103288967, 0.7170428295717043, 0.5779342206577934],
    [0.9689903100968991, 0.03206967930320697, 0.06413935860641394],
    [0.8938010619893801, 0.10970890291097089, 0.21941780582194179],
  ];

  it('give exactly the p-values of one test at a time (the same fixed stream, drawn once)', () => {
    const together = signFlipTests(sets);
    together.forEach((r, i) => {
      expect([r.pLess, r.pGreater, r.pTwoSided]).toEqual(golden[i]);
      expect(signFlipTest(sets[i]!)).toEqual(r);
      expect(r.exact).toBe(false);
    });
  });
});

describe('selection among the shippable forms', () => {
  const truth = Float64Array.from({ length: 14 }, (_, i) => i / 14);
  const off = (errors: number[]) => Float64Array.from(truth, (y, i) => y + (errors[i % errors.length] as number));

  it('keeps the simplest form when the lowest-MAE one is not significantly better', () => {
    const byKind = { accuracy: off([0.05, -0.05, 0.02, -0.02]), 'benchmark-accuracy': off([0.04, -0.03, 0.03, -0.03]), weighted: off([0.06, -0.05, 0.02, -0.02]), ensemble: off([0.05, -0.06, 0.02, -0.03]) };
    const c = chooseShippedKind(truth, byKind);
    expect(c.lowestMae).toBe('benchmark-accuracy');
    expect(c.forms.accuracy.pVersusLowest).toBeGreaterThanOrEqual(0.05);
    expect(c.kind).toBe('accuracy');
  });

  it('takes the first form not significantly worse than a form that errs clearly less on every model', () => {
    const byKind = { accuracy: off([0.2, -0.2]), 'benchmark-accuracy': off([0.2, -0.19]), weighted: off([0.01, -0.01]), ensemble: off([0.011, -0.01]) };
    const c = chooseShippedKind(truth, byKind);
    expect(c.lowestMae).toBe('weighted');
    expect(c.forms.accuracy.pVersusLowest).toBeLessThan(0.05);
    expect(c.kind).toBe('weighted');
    // Below ten models nothing can be told apart: the simplest form ships.
    const few = chooseShippedKind(truth.subarray(0, 8), Object.fromEntries(Object.entries(byKind).map(([k, v]) => [k, v.subarray(0, 8)])) as typeof byKind);
    expect(few.kind).toBe('accuracy');
  });
});

describe('fit --tune', () => {
  it('ships the forms of the settings the nested search picks over all of the target’s models, and evaluate runs the same rule as shipped-tuned', async () => {
    const syn = syntheticPace({ models: 16, instances: 500, tasks: 4, dims: 2, targets: 1, targetInstances: 80, seed: 'family' });
    const { model } = await fitPace(syn.matrix, syn.targets, { ...options, configs: { [data.targets[0]!.name]: config }, tune: tuneGrid });
    const target = data.targets[0]!;
    const tuned = nestedSearch(data, target, Int32Array.from(target.rows.keys()), options, tuneGrid, null).config;
    expect(tuned).not.toEqual(config);
    expect(model!.targets[0]!.config).toEqual(tuned);
    expect(model!.targets[0]!.shipped.weights.every((w) => w.weight >= 0)).toBe(true);
    const report = await runLoocv(data, { ...options, frozen: {}, nested: tuneGrid, baselines: ['mean'], budgetCurve: [], maxFolds: 3 });
    const t = report.targets[0]!;
    expect(t.methods.map((m) => m.method).slice(0, 2)).toEqual(['shipped', 'shipped-tuned']);
    expect(t.shippedTunedChoices).toHaveLength(3);
    expect(t.methods[1]!.coverage!.map((c) => c.folds)).toEqual([3, 3]);
  }, 300_000);
});

describe('below ten models', () => {
  it('evaluate says there are not enough models to tell, with the number, however large the difference', async () => {
    const syn = syntheticPace({ models: 8, instances: 300, tasks: 3, dims: 2, targets: 1, targetInstances: 60, seed: 'few' });
    const { data: d } = prepareData(syn.matrix, syn.targets, { bootstrap: 0, seed: '1' });
    const report = await runLoocv(d!, { ...options, frozen: {}, nested: null, baselines: ['mean', 'ridge-all'], budgetCurve: [] });
    const t = report.targets[0]!;
    for (const c of t.comparisons) expect(c.vsMean.adjusted!.verdict).toBe('too-few-models');
    expect(renderLoocvTable(report)).toContain('shipped cannot be told apart from the mean predictor: not enough models to tell (n = 8, need ≥ 10)');
  });
});

describe('verdicts do not hinge on the seed', () => {
  it('five seeds give the same shipped choice, the same Holm-corrected verdicts and the same coverage', async () => {
    const syn = syntheticPace({ models: 12, instances: 300, tasks: 3, dims: 2, targets: 1, targetInstances: 60, seed: 'seeds' });
    const runs = [];
    for (const seed of ['1', '2', '3', '4', '5']) {
      const { data: d } = prepareData(syn.matrix, syn.targets, { bootstrap: 0, seed });
      const report = await runLoocv(d!, { ...options, seed, frozen: {}, nested: null, baselines: ['mean', 'overall-mean-ols', 'ridge-all', 'knn-models'], budgetCurve: [] });
      const t = report.targets[0]!;
      runs.push({
        verdicts: t.comparisons.map((c) => [c.method, c.vsMean.verdict, c.vsMean.adjusted!.verdict, c.vsMean.adjusted!.p]),
        shipped: t.methods.find((m) => m.method === 'shipped')!.predictions,
        coverage: t.coverage.map((c) => c.covered),
      });
    }
    expect(runs[0]!.verdicts.length).toBeGreaterThan(6);
    for (const r of runs.slice(1)) expect(r).toEqual(runs[0]);
  }, 300_000);
});
