/**
 * PACE fit + leave-one-model-out on synthetic IRT matrices of PACE's size (26 × 24,000) and two
 * larger shapes (500 × 100,000; 5,000 × 30,000), timed with peak memory, beside a numpy/scipy
 * implementation of the same steps run in the same invocation (reference ratio).
 * `PACE_BENCH_SIZES=small` runs only the PACE-sized case; a comma list of case names (e.g.
 * `PACE_BENCH_SIZES=500x100000`) runs those. Each case also times `evaluate` with every
 * candidate (pace-evaluate.ts): fully at 26 models, projected from measured folds at 500
 * (`PACE_BENCH_EVALUATE=0` skips it).
 */
import { syntheticPace } from '../../generator/core/pace/inputs/synthetic.js';
import { prepareData } from '../../generator/core/pace/inputs/prepare.js';
import { fitPace } from '../../generator/core/pace/fit.js';
import { shippedKinds } from '../../generator/core/pace/predictors/shipped-family.js';
import { runLoocv } from '../../generator/core/pace/evaluation/loocv.js';
import { checkpointScores, predictPace } from '../../generator/core/pace/predict.js';
import { peakRssMiB, report, runPythonReference, timed } from './measure.js';
import { timeEvaluate, type EvaluatePlan } from './pace-evaluate.js';

interface Case {
  name: string;
  models: number;
  instances: number;
  folds: number;
  svdScope: 'fold' | 'all';
  /** `evaluate` with every candidate (pace-evaluate.ts): all folds, or a measured subset projected. */
  evaluate: EvaluatePlan | null;
}

const cases: Case[] = [
  { name: '26x24000', models: 26, instances: 24_000, folds: 26, svdScope: 'fold', evaluate: { folds: 'all' } },
  { name: '500x100000', models: 500, instances: 100_000, folds: 3, svdScope: 'all', evaluate: { folds: 2 } },
  { name: '5000x30000', models: 5000, instances: 30_000, folds: 2, svdScope: 'all', evaluate: null },
];
const sizes = process.env.PACE_BENCH_SIZES;
const wanted = sizes === 'small' ? cases.slice(0, 1) : sizes ? cases.filter((c) => sizes.split(',').includes(c.name)) : cases;
const config = { budget: 100, q: 0.5, m: 0.5, ncH: 3, ncD: 3 };
const B = 100;

const reference = String.raw`
import json, sys, time, resource
import numpy as np
from scipy.stats import rankdata
from sklearn.linear_model import LogisticRegression
n, S, folds, scope = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
B, C, q, m, ncH, ncD, NT = 100, 100, 0.5, 0.5, 3, 3, 200
rng = np.random.default_rng(0)
t0 = time.time()
theta = rng.normal(size=(n, 2))
X = np.empty((n, S))
for j0 in range(0, S, 4000):
    w = min(4000, S - j0)
    a = np.abs(rng.normal(size=(w, 2))) + 0.1; b = rng.normal(size=w)
    X[:, j0:j0 + w] = (rng.random((n, w)) < 1 / (1 + np.exp(-(theta @ a.T - b)))).astype(np.float64)
ability = theta.sum(1) / np.sqrt(2)
O = (rng.random((n, NT)) < 1 / (1 + np.exp(-(ability[:, None] * (0.5 + rng.random(NT)) - rng.normal(size=NT))))).astype(np.float64)
y = O.mean(1)
gen = time.time() - t0

def colspearman(rows, yy):
    ry = rankdata(yy); ry -= ry.mean(); out = np.empty(S)
    for j0 in range(0, S, 2000):
        R = rankdata(X[rows, j0:j0 + 2000], axis=0); R -= R.mean(0)
        den = np.sqrt((R * R).sum(0) * (ry @ ry))
        out[j0:j0 + 2000] = np.where(den > 1e-12, (ry @ R) / np.where(den > 0, den, 1), np.nan)
    return out

def topsvd(rows, k):
    Xr = X[rows]
    if len(rows) <= 128:
        w, U = np.linalg.eigh(Xr @ Xr.T); idx = np.argsort(w)[::-1][:k]; s = np.sqrt(np.maximum(w[idx], 0))
        return (Xr.T @ U[:, idx]) / s
    l = k + 10; Q, _ = np.linalg.qr(Xr @ rng.normal(size=(S, l)))
    for _ in range(3):
        Z, _ = np.linalg.qr(Xr.T @ Q); Q, _ = np.linalg.qr(Xr @ Z)
    Bt = Xr.T @ Q; w, W = np.linalg.eigh(Bt.T @ Bt); idx = np.argsort(w)[::-1][:k]
    return Bt @ W[:, idx] / np.sqrt(w[idx])

def spearman_pool(x, yb):
    return np.corrcoef(rankdata(np.repeat(x, yb.shape[1])), rankdata(yb.ravel()))[0, 1]

def goal_a(U, Ute, yb):
    rho = np.array([spearman_pool(U[:, c], yb) for c in range(U.shape[1])])
    wgt = rho / np.abs(rho).sum(); x = U @ wgt
    slope, icpt = np.polyfit(np.repeat(x, yb.shape[1]), yb.ravel(), 1)
    return icpt + slope * (Ute @ wgt)

def bt(U, yb):
    nn = U.shape[0]; pairs = [(i, j) for i in range(nn) for j in range(nn) if i != j] if nn * (nn - 1) <= 200000 else [tuple(rng.choice(nn, 2, replace=False)) for _ in range(200000)]
    I = np.array([p[0] for p in pairs]); J = np.array([p[1] for p in pairs])
    d = U[I] - U[J]; wins = (yb[I] > yb[J]).sum(1); tot = (yb[I] != yb[J]).sum(1)
    feats = np.vstack([d, d]); labels = np.r_[np.ones(len(d)), np.zeros(len(d))]; sw = np.r_[wins, tot - wins]
    keep = sw > 0
    LogisticRegression(C=1 / (sw.sum() * 0.1), fit_intercept=False).fit(feats[keep], labels[keep], sample_weight=sw[keep])

def fit(tr, te, V, goal_b=True):
    ytr = y[tr]
    idx = rng.integers(0, NT, (B, NT))
    yb = np.stack([O[tr][:, i].mean(1) for i in idx], 1)
    rho = colspearman(tr, ytr)
    if V is None: V = topsvd(tr, 10)
    ar = np.nan_to_num(np.abs(rho), nan=-1)
    H = np.argsort(-ar, kind='stable')[:round(q * C)]
    D = [c for c in np.argsort(-(V[:, :ncD] ** 2).sum(1) * ar, kind='stable') if c not in set(H)][:C - len(H)]
    Uw, sw_, Vt = np.linalg.svd(X[np.ix_(tr, H)], full_matrices=False)
    UH, uH = Uw[:, :ncH], X[te, H] @ Vt[:ncH].T / sw_[:ncH]
    P = np.linalg.pinv(V[D, :ncD]).T; UD, uD = X[np.ix_(tr, D)] @ P, X[te, D] @ P
    pred = m * goal_a(UH, uH, yb) + (1 - m) * goal_a(UD, uD, yb)
    if goal_b: bt(UH, yb); bt(UD, yb)
    return pred

def cv_split(n):
    # aptpace's fit cross-validates the frozen settings (skill, conformal residuals): leave-one-out
    # up to 50 models, 10 folds above; Goal A only.
    if n <= 50: return [np.array([i]) for i in range(n)]
    perm = rng.permutation(n); return [np.sort(perm[f::10]) for f in range(10)]

t1 = time.time()
Vfit = topsvd(np.arange(n), 10) if scope == 'all' else None
fit(np.arange(n), 0, Vfit)
for held in cv_split(n):
    fit(np.setdiff1d(np.arange(n), held), held, Vfit, goal_b=False)
fit_s = time.time() - t1
t2 = time.time()
Vall = topsvd(np.arange(n), 10) if scope == 'all' else None
for k in range(folds):
    fit(np.array([i for i in range(n) if i != k]), k, Vall)
fold_s = (time.time() - t2) / folds
print(json.dumps({'gen': gen, 'fit': fit_s, 'fold': fold_s, 'peakMiB': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
`;

for (const c of wanted) {
  const gen = await timed(() => syntheticPace({ models: c.models, instances: c.instances, dims: 2, targets: 1, targetInstances: 200, seed: `bench-${c.name}` }));
  const syn = gen.result;
  const options = { bootstrap: B, alpha: 0.1, seed: '42', svdScope: c.svdScope };
  const fit = await timed(() => fitPace(syn.matrix, syn.targets, { ...options, configs: { 'agentic-0': config } }));
  // What `check` computes for one checkpoint from the model file (placement, shipped form, range tests).
  const scores = checkpointScores(syn.matrix, syn.matrix.models[0]!.name)!;
  const check = await timed(() => predictPace(fit.result.model!, syn.matrix.models[0]!.name, scores));
  const prepared = prepareData(syn.matrix, syn.targets, { bootstrap: B, seed: '42' });
  // Leave-one-out folds at every size, as numpy's reference runs them (evaluate's default is K-fold above 50 models).
  const baselines = c.models <= 100 ? (['mean', 'ridge-all', 'correlation-top-c'] as const) : (['mean', 'correlation-top-c'] as const);
  const loocv = await timed(() =>
    runLoocv(prepared.data!, { ...options, frozen: { 'agentic-0': config }, nested: null, baselines: [...baselines], budgetCurve: [], maxFolds: c.folds, coverage: false, outerFolds: 'leave-one-out' }),
  );
  const methods = loocv.result.targets[0]!.methods;
  const pace = methods.find((m) => m.method === 'pace-frozen')!;
  const shippedMae = Object.fromEntries(shippedKinds.map((kind) => [`loocv_shipped_${kind}_mae_pp`, 100 * methods.find((m) => m.method === `shipped-${kind}`)!.metrics.mae]));
  const peakBeforeEvaluate = peakRssMiB();
  const evaluate = c.evaluate && process.env.PACE_BENCH_EVALUATE !== '0' ? await timeEvaluate(prepared.data!, options, config, c.evaluate) : {};
  const py = runPythonReference(reference, [String(c.models), String(c.instances), String(c.folds), c.svdScope]);
  const foldSeconds = loocv.seconds / c.folds;
  report(`pace ${c.name}`, {
    generate_s: gen.seconds,
    fit_s: fit.seconds,
    check_predict_s: check.seconds,
    loocv_folds: c.folds,
    per_fold_s: foldSeconds,
    full_loocv_projected_s: foldSeconds * c.models,
    svd_scope: c.svdScope,
    peak_rss_MiB: peakBeforeEvaluate,
    loocv_mae_pp: 100 * pace.metrics.mae,
    ...shippedMae,
    fit_shipped_kind: fit.result.model!.targets[0]!.shipped.kind,
    numpy_fit_s: py.fit!,
    numpy_per_fold_s: py.fold!,
    numpy_peak_MiB: py.peakMiB!,
    fit_ratio_vs_numpy: fit.seconds / py.fit!,
    fold_ratio_vs_numpy: foldSeconds / py.fold!,
    ...evaluate,
    peak_rss_after_evaluate_MiB: peakRssMiB(),
  });
  (globalThis as { gc?: () => void }).gc?.();
}
