"""PACE predictions in lm-evaluation-harness's own results table.

Written by aptpace fit --suite; do not edit (refit instead). Every proxy task of this suite is
built with PaceTask (the "class:" line of its YAML): it scores documents exactly as the emitted
task does and adds, per agentic target T of pace_model.json, the metrics

  pace_T                predicted score (the target's own scale); -1 when this run cannot
                        predict T (too few proxy documents scored, a data-parallel run, ...):
                        the reason is logged as a warning and every pace_T* value is -1
                        except _vouched (0) and _missing (-1 only when it is unknown)
  pace_T_lo80/hi80      80% prediction interval
  pace_T_lo95/hi95      95% prediction interval
  pace_T_vouched        1 when aptpace check could vouch for it, 0 when check raises a concern
                        (no demonstrated skill in cross-validation, the checkpoint below every
                        training model on the proxy set, or outside the training models' range);
                        the concerns are logged as warnings
  pace_T_missing        proxy documents of T this run did not score

The proxy-consistency check of aptpace check (is the proxy score in line with the checkpoint's
other source items?) needs the yardstick items, which this suite does not hold: the table logs
that it was not made.

computed from every proxy document scored in this run, as aptpace check computes them from the
run's logs (generator/core/pace/predict.ts). One task, the reporter named in pace_model.json,
carries these metrics and the top group shows them, so the table prints each prediction twice
rather than once per task; lm-eval's warning that the group's pace_* metrics are missing in the
other tasks is expected and filtered out of its log. A suite model without a reporter (older
fits) has every task carry them.
"""
import json
import logging
import math
import os
import sys
import types
from pathlib import Path

import numpy as np
from lm_eval.api.task import ConfigurableTask

HERE = Path(__file__).resolve().parent
MODEL = json.loads((HERE / "pace_model.json").read_text(encoding="utf-8"))
INSTANCES = {i["key"]: i for i in MODEL["instances"]}
FIELDS = ("", "_lo80", "_hi80", "_lo95", "_hi95", "_vouched", "_missing")
# Per target, its proxy instances: local first, then global, each once (predict.ts iterates the
# same Set order); computed once, at import.
TASK_OF = {i["key"]: i["task"] for i in MODEL["instances"]}
# The value written for a target this run cannot predict: never NaN (lm-eval's group means and
# JSON readers choke on it), and outside every valid score.
NOT_PREDICTED = -1.0
KEYS = {t["target"]: list(dict.fromkeys(k for side in ("local", "global") if t[side] for k in t[side]["instances"])) for t in MODEL["targets"]}
TARGET_KEYS = {target: set(keys) for target, keys in KEYS.items()}
log = logging.getLogger("lm_eval.tasks.aptpace_pace")
REPORTER = MODEL.get("reporter")


class _ExpectedGroupGap(logging.Filter):
    """Drops lm-eval's "metric 'pace_…' is missing in N/M tasks": only the reporter carries them."""

    def filter(self, record):
        message = record.getMessage()
        return not ("metric 'pace_" in message and "is missing in" in message)


def _install_log_filter():
    group_log = logging.getLogger("lm_eval.api.group")
    if not any(isinstance(f, _ExpectedGroupGap) for f in group_log.filters):
        group_log.addFilter(_ExpectedGroupGap())


if REPORTER is not None:
    _install_log_filter()


def _reports(task):
    return REPORTER is None or task == REPORTER


def _state():
    # One record per process and suite folder, whichever module object the harness loaded.
    holder = sys.modules.get("_aptpace_pace_state")
    if holder is None:
        holder = types.ModuleType("_aptpace_pace_state")
        holder.runs = {}
        sys.modules["_aptpace_pace_state"] = holder
    return holder.runs.setdefault(str(HERE), _fresh())


def _fresh():
    return {"tasks": set(), "scores": {}, "calls": {}, "problems": [], "result": None, "logged": False}


def _world_size():
    try:
        import torch.distributed as dist

        if dist.is_available() and dist.is_initialized():
            return dist.get_world_size()
    except Exception:
        pass
    try:
        return int(os.environ.get("WORLD_SIZE", "1") or 1)
    except ValueError:
        return 1


class PaceTask(ConfigurableTask):
    def __init__(self, config=None, **kwargs):
        super().__init__(config={k: v for k, v in (config or {}).items() if k != "class"}, **kwargs)
        state = _state()
        if self.config.task in state["tasks"]:
            # The same task built again: a new evaluation in this process starts a new record.
            state.clear()
            state.update(_fresh())
        state["tasks"].add(self.config.task)

    def process_results(self, doc, results):
        out = super().process_results(doc, results)
        state = _state()
        task = self.config.task
        state["calls"][task] = state["calls"].get(task, 0) + 1
        state["result"] = None
        if len(getattr(self, "_filters", []) or []) > 1:
            state["problems"].append(task + " has several filters (its documents are scored once per filter)")
        score = None
        inst = INSTANCES.get(task + "/" + str(doc.get("id"))) if isinstance(doc, dict) else None
        if inst is not None and inst["metric"] in out:
            raw = out[inst["metric"]]
            if isinstance(raw, (bool, int, float, np.floating, np.integer)) and math.isfinite(float(raw)):
                score = float(raw)
                state["scores"][inst["key"]] = score
        if not _reports(task):
            return out
        for t in MODEL["targets"]:
            # Per document: the score it contributed to this target's prediction (None: not one of its proxies).
            mine = score if inst is not None and inst["key"] in TARGET_KEYS[t["target"]] else None
            for field in FIELDS:
                out[t["metric"] + field] = mine
        return out

    def aggregation(self):
        agg = dict(super().aggregation())
        if _reports(self.config.task):
            for t in MODEL["targets"]:
                for field in FIELDS:
                    agg[t["metric"] + field] = _aggregator(self.config.task, t["target"], field)
        return agg

    def higher_is_better(self):
        hib = dict(super().higher_is_better())
        if _reports(self.config.task):
            for t in MODEL["targets"]:
                for field in FIELDS:
                    hib[t["metric"] + field] = field != "_missing"
        return hib


def _aggregator(task, target, field):
    def aggregate(items):
        state = _state()
        if len(items) != state["calls"].get(task, 0):
            # The gathered values are not the ones this process scored: a data-parallel run.
            state["problems"].append(task + ": this process scored %d of its %d documents" % (state["calls"].get(task, 0), len(items)))
            state["result"] = None
        if state["result"] is None:
            state["result"] = _predict_all(state)
        return state["result"][target][field]

    aggregate.__name__ = "aptpace_pace_" + field.lstrip("_")
    return aggregate


def _predict_all(state):
    blank = {t["target"]: dict({field: NOT_PREDICTED for field in FIELDS}, _vouched=0.0) for t in MODEL["targets"]}
    problems = list(dict.fromkeys(state["problems"]))
    if _world_size() > 1:
        problems.append("a data-parallel run (%d processes): each process scores part of the documents" % _world_size())
    if problems:
        log.warning("aptpace: no PACE prediction in this table (%s); run aptpace check on the logs", "; ".join(problems))
        return blank
    out = {}
    for t in MODEL["targets"]:
        forecast, why = _predict(t, state["scores"])
        if forecast is None:
            if not state["logged"]:
                log.warning("aptpace: %s: no prediction (%s)", t["target"], why)
            out[t["target"]] = dict(blank[t["target"]], _missing=float(_missing_count(t, state["scores"])))
            continue
        out[t["target"]] = forecast
        if not state["logged"]:
            if forecast["_missing"]:
                log.warning("aptpace: %s: %d of the proxy documents were not scored in this run; the prediction places the checkpoint from the others", t["target"], forecast["_missing"])
            for concern in forecast.pop("concerns"):
                log.warning("aptpace: %s: prediction not vouched for: %s", t["target"], concern)
            if (t.get("consistency") or {}).get("instances"):
                # proxy-consistency.ts: the yardstick items are in the full suite, never in this one.
                log.warning(
                    "aptpace: %s: proxy consistency not checked: this suite holds none of the %d yardstick items, "
                    "so a checkpoint that has seen the public proxy items in training gets the prediction of one "
                    "that answers them on merit; aptpace check on the logs of a full-suite run makes the check",
                    t["target"], len(t["consistency"]["instances"]))
        else:
            forecast.pop("concerns")
    state["logged"] = True
    return out


def _keys(t):
    return KEYS[t["target"]]


def _missing_count(t, scores):
    return sum(1 for k in _keys(t) if k not in scores)


def _least_squares(a, b, rtol=1e-12):
    # linalg.ts leastSquares: normal equations, solved directly when well conditioned, else pinv.
    ata = a.T @ a
    atb = a.T @ b
    k = ata.shape[0]
    values = np.linalg.eigvalsh(ata)[::-1]
    if values[k - 1] > 1e6 * rtol * max(0.0, values[0]):
        try:
            chol = np.linalg.cholesky(ata)
            return np.linalg.solve(chol.T, np.linalg.solve(chol, atb))
        except np.linalg.LinAlgError:
            pass
    lam, vec = np.linalg.eigh(ata)
    top = max(0.0, lam.max())
    out = np.zeros(k)
    for j in range(k):
        if lam[j] > rtol * top and lam[j] > 0:
            out += vec[:, j] * (vec[:, j] @ atb) / lam[j]
    return out


def _embed(part, scores):
    # embed.ts embedPartial: u = x.proj when every instance is observed, else least squares on
    # the observed rows of the basis; None with fewer observed rows than dimensions.
    k = part["k"]
    x = np.array([scores.get(key, math.nan) for key in part["instances"]], dtype=float)
    observed = ~np.isnan(x)
    if k == 0:
        return np.zeros(0)
    if observed.all():
        return x @ np.array(part["proj"], dtype=float).reshape(len(x), k)
    if observed.sum() < k:
        return None
    basis = np.array(part["basis"], dtype=float).reshape(len(x), k)
    return _least_squares(basis[observed], x[observed])


def _goal_a(fit, u):
    # goal-a.ts predictGoalA, with PACE's guard (beyond two ranges of y: the pool mean).
    x = float(sum(float(u[c]) * w for c, w in enumerate(fit["weights"])))
    spread = fit["yMax"] - fit["yMin"]

    def guard(v):
        return math.isfinite(v) and fit["yMin"] - 2 * spread <= v <= fit["yMax"] + 2 * spread

    raw = fit["intercept"] + fit["slope"] * x
    reps = []
    for b, s in enumerate(fit["replicateSlopes"]):
        v = fit["replicateIntercepts"][b] + s * x
        reps.append(v if guard(v) else fit["yMean"])
    return (raw, reps) if guard(raw) else (fit["yMean"], reps)


def _percentile(sorted_values, q):
    pos = (len(sorted_values) - 1) * q
    lo, hi = math.floor(pos), math.ceil(pos)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def _half_width(abs_residuals, level):
    ordered = sorted(abs_residuals)
    n = len(ordered)
    rank = math.ceil(level * (n + 1) - 1e-12)
    if n == 0 or rank > n:
        return math.inf
    return ordered[max(rank, 1) - 1]


def _predict(t, scores):
    keys = _keys(t)
    missing = sum(1 for k in keys if k not in scores)
    u = {side: (_embed(t[side], scores) if t[side] else None) for side in ("local", "global")}
    if u["local"] is None and u["global"] is None:
        return None, "%d of %d proxy documents scored, too few to place the checkpoint" % (len(keys) - missing, len(keys))
    both = u["local"] is not None and u["global"] is not None
    m = t["effectiveM"] if both else (1 if u["local"] is not None else 0)
    pl = _goal_a(t["local"]["goalA"], u["local"]) if u["local"] is not None else None
    pg = _goal_a(t["global"]["goalA"], u["global"]) if u["global"] is not None else None
    wl = (m if pg else 1) if pl else 0
    wg = ((1 - m) if pl else 1) if pg else 0
    value = (wl * pl[0] if pl else 0) + (wg * pg[0] if pg else 0)
    n_rep = max(len(pl[1]) if pl else 0, len(pg[1]) if pg else 0)
    reps = [(wl * pl[1][b] if pl else 0) + (wg * pg[1][b] if pg else 0) for b in range(n_rep)]
    f = t["displayFactor"]
    bounds = (-math.inf, math.inf) if t["scale"] == "raw" else (0.0, 1.0)
    # monotone.ts: the shipped monotone form, clipped; PACE's point only centres the replicates.
    shipped = _monotone(t, keys, scores)
    point = math.nan if shipped is None else min(bounds[1], max(bounds[0], shipped))
    reps = [r - value + point for r in reps]
    value = point
    if not math.isfinite(value) or not all(math.isfinite(r) for r in reps):
        return None, "the prediction is not a finite number"
    out = {"": value * f, "_missing": float(missing)}
    ordered = sorted(reps)
    for level, tag in ((0.8, "80"), (0.95, "95")):
        # conformal.ts conformalInterval, widened to coverage.ts labelNoiseInterval.
        h = _half_width(t["cv"]["absResiduals"], level)
        lower = max(bounds[0], value - h)
        upper = min(bounds[1], value + h)
        if len(ordered) >= 2:
            tail = (1 - level) / 2
            lower = max(bounds[0], min(lower, _percentile(ordered, tail)))
            upper = min(bounds[1], max(upper, _percentile(ordered, 1 - tail)))
        out["_lo" + tag] = lower * f
        out["_hi" + tag] = upper * f
    concerns = []
    if t["cv"]["verdict"] != "better":
        concerns.append("no demonstrated skill over the mean predictor in cross-validation (verdict: %s)" % t["cv"]["verdict"])
    seen = [scores[k] for k in keys if k in scores]
    proxy_mean = [sum(seen) / len(seen)] if seen else None
    # range-noise.ts: how far each coordinate moves by the checkpoint's item draws alone.
    var = max(0.0, proxy_mean[0] * (1 - proxy_mean[0])) if seen else 0.0
    noise = {side: (_coordinate_se(t[side], scores, var) if u[side] is not None else None) for side in ("local", "global")}
    noise["proxyMean"] = [math.sqrt(var / len(seen))] if seen else None
    below, outside = _excursions(t["range"], {"local": u["local"], "global": u["global"], "proxyMean": proxy_mean}, noise)
    if below:
        concerns.append("the checkpoint scores below every training model on the proxy set (" + "; ".join(below) + ")")
    if outside:
        concerns.append("the checkpoint lies outside the training models' range (" + "; ".join(outside) + ")")
    out["_vouched"] = 0.0 if concerns else 1.0
    out["concerns"] = concerns
    return out, None


def _monotone(t, keys, scores):
    # monotone.ts monotoneValue: kept positive weights; an unobserved item takes the checkpoint's
    # own mean over its observed proxy items of the same task (all of them when none there).
    by_task = {}
    total, n = 0.0, 0
    for key in keys:
        if key in scores:
            acc = by_task.setdefault(TASK_OF.get(key, ""), [0.0, 0])
            acc[0] += scores[key]
            acc[1] += 1
            total += scores[key]
            n += 1
    if n == 0:
        return None
    value = t["shipped"]["intercept"]
    for w in t["shipped"]["weights"]:
        x = scores.get(w["key"])
        if x is None:
            acc = by_task.get(w["task"])
            x = acc[0] / acc[1] if acc else total / n
        value += w["weight"] * x
    return value


def _mahalanobis(lev, u):
    # leverage.ts leverageDistance (the covariance is symmetric positive definite: ridge added).
    k = lev["k"]
    d = np.array([float(u[j]) - lev["mean"][j] for j in range(k)])
    try:
        x = np.linalg.solve(np.array(lev["covariance"], dtype=float).reshape(k, k), d)
    except np.linalg.LinAlgError:
        return math.inf
    return math.sqrt(max(0.0, float(d @ x)))


def _coordinate_se(part, scores, var):
    # range-noise.ts coordinateStandardErrors: sqrt(var * sum_s P_sj^2), P the map embed() applies.
    k = part["k"]
    x = np.array([scores.get(key, math.nan) for key in part["instances"]], dtype=float)
    observed = ~np.isnan(x)
    if observed.all():
        proj = np.array(part["proj"], dtype=float).reshape(len(x), k)
    else:
        a = np.array(part["basis"], dtype=float).reshape(len(x), k)[observed]
        proj = a @ np.linalg.pinv(a.T @ a, rcond=1e-12, hermitian=True)
    return np.sqrt(var * (proj**2).sum(axis=0))


def _excursions(box, u, noise):
    # skill.ts rangeExcursions: (below the weakest training model, every other excursion).
    below, found = [], []
    for side in ("local", "global", "proxyMean"):
        r = box.get(side)
        x = u[side]
        if not r or x is None:
            continue
        for j, lo in enumerate(r["min"]):
            hi = r["max"][j]
            v = float(x[j])
            if side == "proxyMean" and (v < lo or v == 0):
                below.append("proxy accuracy %.3g vs %.3g for the weakest training model" % (v, lo))
                continue
            width = (hi - lo) or 1
            beyond = (lo - v) if v < lo else (v - hi) if v > hi else 0
            se = float(noise[side][j]) if noise.get(side) is not None else 0.0
            if beyond / width > MODEL["rangeTolerance"] and beyond > MODEL.get("rangeNoiseZ", 0) * se:
                found.append("%s %d: %.3g vs [%.3g, %.3g]" % (side, j + 1, v, lo, hi))
    for side in ("local", "global"):
        lev = (box.get("leverage") or {}).get(side)
        x = u[side]
        if not lev or x is None:
            continue
        dist = _mahalanobis(lev, x)
        if dist > MODEL["leverageTolerance"] * lev["threshold"]:
            found.append("%s embedding: Mahalanobis distance %.3g vs %.3g" % (side, dist, lev["threshold"]))
    return below, found
