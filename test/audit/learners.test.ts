/**
 * The learned adversary's learners (audit/learners.ts) and the build's last filtering step
 * (adversarial-drop.ts), on synthetic standardised rows where the cue is known: a cue only a
 * non-linear model reads, a cue carried by one feature, and none.
 */
import { describe, expect, it } from 'vitest';
import { Rng } from '../../generator/core/kernel/rng.js';
import { runAdversary } from '../../generator/core/questions/audit/adversary.js';
import { ADVERSARY_LEARNERS, type AdversaryLearner, type TrainingQuestion, type WarmStart } from '../../generator/core/questions/audit/learners.js';
import { standardiseWithin } from '../../generator/core/questions/audit/ranker.js';
import { argmaxCredit } from '../../generator/core/questions/audit/shortcuts/types.js';
import { wilsonInterval } from '../../generator/core/questions/audit/stats.js';
import { hashSeed } from '../../generator/core/kernel/rng.js';
import { boundedTraining, dropPredictable } from '../../generator/core/questions/adversarial-drop.js';
import type { Finding } from '../../generator/core/kernel/findings.js';
import { plantedSet } from './planted.js';

const learner = (name: string): AdversaryLearner => ADVERSARY_LEARNERS.find((l) => l.name === name)!;

/** Questions of 4 options × 6 noise features; `plant(rows, rng)` returns the gold index it planted. */
function synthetic(n: number, seed: string, plant: (rows: number[][], rng: Rng) => number): TrainingQuestion[] {
  const rng = new Rng(seed);
  return Array.from({ length: n }, () => {
    const raw = Array.from({ length: 4 }, () => Array.from({ length: 6 }, () => rng.normal()));
    const gold = plant(raw, rng);
    return { rows: standardiseWithin(raw), gold };
  });
}

function heldOut(name: string, train: TrainingQuestion[], test: TrainingQuestion[]): number {
  const score = learner(name).fit(train);
  return test.reduce((s, q) => s + argmaxCredit(score(q.rows), q.gold), 0) / test.length;
}

/** The gold is the option farthest from the others on feature 0, in either direction: no linear score ranks it first. */
const farthest = (rows: number[][]) => {
  const mean = rows.reduce((s, r) => s + r[0]!, 0) / rows.length;
  let best = 0;
  rows.forEach((r, i) => {
    if (Math.abs(r[0]! - mean) > Math.abs(rows[best]![0]! - mean)) best = i;
  });
  return best;
};

/** In 60% of questions the gold is the option lowest on feature 3; otherwise a random option. */
const lowestOn3 = (rows: number[][], rng: Rng) => {
  if (rng.next() >= 0.6) return rng.int(rows.length);
  return rows.reduce((best, r, i) => (r[3]! < rows[best]![3]! ? i : best), 0);
};

describe('adversary learners', () => {
  it('a cue in both tails of one feature: the linear model stays near chance, the trees find it', () => {
    const train = synthetic(400, 'tails-train', farthest);
    const test = synthetic(400, 'tails-test', farthest);
    expect(heldOut('linear', train, test)).toBeLessThan(0.35);
    expect(heldOut('trees', train, test)).toBeGreaterThan(0.7);
  });

  it('a cue on one feature: the single-feature learner finds it and reads it the right way round', () => {
    const train = synthetic(300, 'low3-train', lowestOn3);
    const test = synthetic(300, 'low3-test', lowestOn3);
    // 60% found by the cue, the rest guessed: about 0.6 + 0.4 × 0.25 = 70%.
    expect(heldOut('single-feature', train, test)).toBeGreaterThan(0.6);
    const score = learner('single-feature').fit(train);
    const [low, high] = score([
      [0, 0, 0, -1, 0, 0],
      [0, 0, 0, 1, 0, 0],
    ]);
    expect(low).toBeGreaterThan(high!);
    const [a, b] = score([
      [5, 5, 5, 0, 5, 5],
      [-5, -5, -5, 0, -5, -5],
    ]);
    expect(a).toBe(b);
  });

  it('a cue on raw values: the ranked learner reads it, the within-question one cannot', () => {
    // The gold is the option with the largest raw feature 0 + feature 1, where feature 0's spread
    // differs from question to question: standardising within the question hides how much each
    // feature counts there, the raw view keeps it.
    const rawSet = (n: number, seed: string): TrainingQuestion[] => {
      const rng = new Rng(seed);
      return Array.from({ length: n }, () => {
        const spread = rng.next() < 0.5 ? 0.1 : 10;
        const rows = Array.from({ length: 4 }, () => Array.from({ length: 6 }, (_, j) => (j === 0 ? spread : 1) * rng.normal()));
        const sums = rows.map((r) => r[0]! + r[1]!);
        return { rows, gold: sums.indexOf(Math.max(...sums)) };
      });
    };
    const train = rawSet(400, 'raw-train');
    const test = rawSet(400, 'raw-test');
    const linear = heldOut('linear', train, test);
    const ranked = heldOut('ranked', train, test);
    expect(linear).toBeLessThan(0.75);
    expect(ranked).toBeGreaterThan(linear + 0.1);
  });

  it('no learner finds a gold that carries no cue', () => {
    const random = (rows: number[][], rng: Rng) => rng.int(rows.length);
    const train = synthetic(400, 'none-train', random);
    const test = synthetic(400, 'none-test', random);
    for (const l of ADVERSARY_LEARNERS) expect(Math.abs(heldOut(l.name, train, test) - 0.25), l.name).toBeLessThan(0.07);
  });

  it('a logistic learner started from an earlier fit on most of the same questions reaches the same optimum', () => {
    const train = synthetic(400, 'warm-train', lowestOn3);
    const test = synthetic(100, 'warm-test', lowestOn3);
    for (const name of ['linear', 'ranked']) {
      const cold = learner(name).fit(train, 25);
      const warm: WarmStart = {};
      learner(name).fit(train.slice(60), 25, warm);
      expect(warm.weights).toBeDefined();
      const started = learner(name).fit(train, 25, warm);
      for (const q of test) {
        const [a, b] = [cold(q.rows), started(q.rows)];
        a.forEach((v, j) => expect(Math.abs(v - b[j]!), name).toBeLessThan(1e-5));
      }
    }
  });

  it('the gate judges the strongest learner per cell, its interval widened for the learners tried', () => {
    const out: Finding[] = [];
    const result = runAdversary('t', plantedSet('length', { n: 120, recorded: true, seed: 'gate' }), 10, out)!;
    for (const cell of result.cells) {
      expect(cell.learners.map((l) => l.name)).toEqual(ADVERSARY_LEARNERS.map((l) => l.name));
      const strongest = Math.max(...cell.learners.map((l) => l.accuracy));
      expect(cell.accuracy).toBeCloseTo(strongest, 12);
      expect(cell.learners.find((l) => l.name === cell.learner)!.accuracy).toBeCloseTo(strongest, 12);
      expect(cell.interval).toEqual(wilsonInterval(cell.correct, cell.n, 1 - 0.05 / ADVERSARY_LEARNERS.length));
    }
    expect(out.map((f) => [f.code, f.args.learner !== undefined])).toEqual([['audit-adversary-above-chance', true]]);
  });
});

describe('dropping what the refitted learners still find', () => {
  /** Drafts in 5 folds under each of two dealings; in the first `cued` the gold is highest on feature 1 by a wide margin. */
  function candidates(n: number, cued: number, seed: string) {
    const rng = new Rng(seed);
    return Array.from({ length: n }, (_, i) => {
      const raw = Array.from({ length: 4 }, () => Array.from({ length: 6 }, () => rng.normal()));
      if (i < cued) raw[0]![1] = Math.max(...raw.map((r) => r[1]!)) + 2;
      return { id: `d${String(i).padStart(3, '0')}`, folds: [i % 5, Math.floor(i / 5) % 5], language: 'en', rows: standardiseWithin(raw) };
    });
  }

  it('drops mostly the cued drafts and stops once the refitted learners are near chance', async () => {
    const items = candidates(200, 60, 'drop');
    const dropped = await dropPredictable(items, { folds: 5, maxExcess: 0.05, minCell: 30 });
    const cuedDropped = [...dropped].filter((i) => i < 60).length;
    expect(dropped.size).toBeGreaterThan(20);
    expect(cuedDropped / dropped.size).toBeGreaterThan(0.6);
    // What is kept: a fresh linear fit over the same folds is within a few points of chance.
    const kept = items.filter((_, i) => !dropped.has(i));
    let found = 0;
    for (let fold = 0; fold < 5; fold++) {
      const score = learner('linear').fit(kept.filter((c) => c.folds[0] !== fold).map((c) => ({ rows: c.rows, gold: 0 })));
      for (const c of kept.filter((c) => c.folds[0] === fold)) found += argmaxCredit(score(c.rows), 0);
    }
    expect(found / kept.length).toBeLessThan(0.25 + 0.1);
    expect(await dropPredictable(items, { folds: 5, maxExcess: 0.05, minCell: 30 })).toEqual(dropped);
  });

  it('a capped training fold keeps the cap, the input order, and nearly the same drafts when one is dropped', () => {
    const ids = Array.from({ length: 500 }, (_, i) => `d${i}`);
    const all = ids.map((_, i) => i);
    const chosen = boundedTraining(all, 200, (i) => ids[i]!);
    expect(chosen).toHaveLength(200);
    expect(chosen).toEqual([...chosen].sort((a, b) => a - b));
    expect(boundedTraining(all.slice(0, 150), 200, (i) => ids[i]!)).toEqual(all.slice(0, 150));
    const without = boundedTraining(all.filter((i) => i !== chosen[0]), 200, (i) => ids[i]!);
    expect(without.filter((i) => chosen.includes(i))).toHaveLength(199);
  });

  it('a large task with capped training folds is filtered as well, deterministically', async () => {
    const items = candidates(1200, 360, 'drop-large');
    const options = { folds: 5, maxExcess: 0.05, minCell: 30, maxTraining: 400 };
    const dropped = await dropPredictable(items, options);
    expect(dropped.size).toBeGreaterThan(150);
    expect([...dropped].filter((i) => i < 360).length / dropped.size).toBeGreaterThan(0.6);
    expect(await dropPredictable(items, options)).toEqual(dropped);
  });

  it('keeps a marked option (the finish) the gold about as often as chance where it is offered, in each language', async () => {
    // 80 drafts offer a finish (column 5): on the gold in drafts 0–19, on a distractor in 120–179,
    // so a finish is the gold in 1/4 of them. The learners find the first 60 drafts.
    const marked = (i: number) => (i < 20 ? 0 : i >= 120 && i < 180 ? 1 : -1);
    // The finish golds are found most clearly (their cue is the widest), so they are dropped first.
    const widened = (r: number[], i: number, j: number) => (i < 20 && j === 0 ? [r[0]!, r[1]! + 3, ...r.slice(2, 5)] : r.slice(0, 5));
    const items = candidates(200, 60, 'finish').map((c, i) => ({ ...c, rows: c.rows.map((r, j) => [...widened(r, i, j), j === marked(i) ? 1 : 0]) }));
    const share = (dropped: Set<number>) => {
      const kept = items.filter((_, i) => !dropped.has(i) && marked(i) >= 0);
      return kept.filter((c) => c.rows[0]![5] === 1).length / kept.length;
    };
    const options = { folds: 5, maxExcess: 0.05, minCell: 30 };
    const unguarded = await dropPredictable(items, options);
    expect(share(unguarded)).toBeLessThan(0.25 - 0.05);
    const guarded = await dropPredictable(items, { ...options, balanced: [5] });
    expect(Math.abs(share(guarded) - 0.25)).toBeLessThanOrEqual(0.05 + 1e-9);
    expect(guarded.size).toBeGreaterThan(20);
    // Each language is balanced on its own: the other's finishes never stand in for its own.
    const twoLanguages = items.map((c, i) => (i % 2 === 1 ? { ...c, language: 'zh' } : c));
    const perLanguage = await dropPredictable(twoLanguages, { ...options, balanced: [5] });
    for (const language of ['en', 'zh']) {
      const kept = twoLanguages.filter((c, i) => c.language === language && !perLanguage.has(i) && marked(i) >= 0);
      expect(Math.abs(kept.filter((c) => c.rows[0]![5] === 1).length / kept.length - 0.25), language).toBeLessThanOrEqual(0.05 + 1e-9);
    }
  });

  it('judges the scored drafts of a language on their own: few-shot examples do not dilute a cue', async () => {
    // 300 drafts; 100 are scored, 30 of them cued; the other 200 are clean few-shot examples. Over
    // all 300 the cue reads about 7.5 points above chance, within the 10-point limit; over the
    // scored 100 (what the audit judges) about 22.
    const items = candidates(300, 30, 'scored').map((c, i) => ({ ...c, scored: i < 100 }));
    const options = { folds: 5, maxExcess: 0.1, minCell: 30 };
    const blind = await dropPredictable(items.map(({ scored: _, ...c }) => c), options);
    const judged = await dropPredictable(items, options);
    expect(blind.size).toBeLessThanOrEqual(2);
    const cued = [...judged].filter((i) => i < 30).length;
    expect(cued).toBeGreaterThanOrEqual(4);
    expect(cued / judged.size).toBeGreaterThan(0.5);
    expect([...judged].every((i) => i < 100)).toBe(true);
  });

  it('keeps a fixed rule the audit gates (the combined rule) near chance while dropping', async () => {
    // The learners find drafts 0–79, where the rule misses the gold; it finds it in 50 of the other
    // 120, so it reads 25% over all 200. Dropping the found drafts alone would lift it well above.
    const items = candidates(200, 80, 'rule').map((c, i) => ({ ...c, rules: [i >= 80 && i < 130 ? 1 : 0] }));
    const share = (dropped: Set<number>) => {
      const kept = items.filter((_, i) => !dropped.has(i));
      return kept.reduce((s, c) => s + c.rules[0]!, 0) / kept.length;
    };
    const options = { folds: 5, maxExcess: 0.05, minCell: 30 };
    const unguarded = await dropPredictable(items.map(({ rules: _, ...c }) => c), options);
    expect(share(unguarded)).toBeGreaterThan(0.25 + 0.05);
    const guarded = await dropPredictable(items, options);
    expect(guarded.size).toBeGreaterThan(5);
    expect(Math.abs(share(guarded) - 0.25)).toBeLessThanOrEqual(0.05 + 1e-9);
  });

  it('goes on to the next cell when the guards block every drop in the worst one', async () => {
    // zh: 60 drafts, half cued (the worst cell); dropping any of its cued drafts would take the
    // combined rule (1 on those 30 and on 22 en drafts: 20% of 260, 5 points under chance) further
    // below chance, so the guard blocks them all. en: 200 drafts, 60 cued, rule 0 on those.
    const en = candidates(200, 60, 'blocked-en').map((c, i) => ({ ...c, rules: [i >= 100 && i < 122 ? 1 : 0] }));
    const zh = candidates(60, 30, 'blocked-zh').map((c, i) => ({ ...c, id: `z${c.id}`, language: 'zh', rules: [i < 30 ? 1 : 0] }));
    const items = [...en, ...zh];
    const dropped = await dropPredictable(items, { folds: 5, maxExcess: 0.05, minCell: 30 });
    const enCued = [...dropped].filter((i) => i < 60).length;
    // The old loop stopped at its first blocked pass and kept every cued en draft.
    expect(enCued).toBeGreaterThanOrEqual(30);
    const kept = items.filter((_, i) => !dropped.has(i));
    expect(Math.abs(kept.reduce((s, c) => s + c.rules[0]!, 0) / kept.length - 0.25)).toBeLessThanOrEqual(0.05 + 1e-9);
  });

  it('judges when to stop on dealings that did not choose the drops: fresh dealings read the kept set nearer chance', async () => {
    // 150 drafts in 75 groups of two, half with the gold highest on feature 1 by a narrow margin.
    // Six dealings go to the drop step; six more, never shown to it, read what it keeps. Dropping
    // what a dealing's fits find leaves a set that dealing reads low. Judged on the dealings that
    // chose the drops, the step stopped where fresh ones read the strongest learner at 28.1% on
    // average over these four sets (all six dealings pooled; 29.0% over three of them); judged on
    // the other half, 26.3%.
    const learners = ['linear', 'ranked', 'trees'] as const;
    const readings: number[] = [];
    for (const seed of ['a', 'b', 'c', 'd']) {
      const rng = new Rng(`fresh-${seed}`);
      const deal = (salt: string) => {
        const order = Array.from({ length: 75 }, (_, g) => g).sort((a, b) => hashSeed(`${salt}/${a}`) - hashSeed(`${salt}/${b}`) || a - b);
        const fold = new Map(order.map((g, i) => [g, i % 5]));
        return (i: number) => fold.get(Math.floor(i / 2))!;
      };
      const dealings = Array.from({ length: 12 }, (_, d) => deal(`${seed}${d}`));
      const items = Array.from({ length: 150 }, (_, i) => {
        const raw = Array.from({ length: 4 }, () => Array.from({ length: 8 }, () => rng.normal()));
        if (rng.next() < 0.5) raw[0]![1] = Math.max(...raw.map((r) => r[1]!)) + 0.3;
        return { id: `d${String(i).padStart(3, '0')}`, folds: dealings.slice(0, 6).map((f) => f(i)), language: 'en', rows: standardiseWithin(raw) };
      });
      const dropped = await dropPredictable(items, { folds: 5, maxExcess: 0.05, minCell: 30 });
      const kept = items.map((_, i) => i).filter((i) => !dropped.has(i));
      let strongest = 0;
      for (const name of learners) {
        let found = 0;
        for (const fold of dealings.slice(6)) {
          for (let f = 0; f < 5; f++) {
            const score = learner(name).fit(kept.filter((i) => fold(i) !== f).map((i) => ({ rows: items[i]!.rows, gold: 0 })));
            for (const i of kept.filter((i) => fold(i) === f)) found += argmaxCredit(score(items[i]!.rows), 0) / 6;
          }
        }
        strongest = Math.max(strongest, found / kept.length);
      }
      readings.push(strongest);
    }
    expect(readings.reduce((s, r) => s + r, 0) / readings.length).toBeLessThanOrEqual(0.275);
  });

  it('drops nothing, or next to nothing, where no cue exists', async () => {
    const dropped = await dropPredictable(candidates(200, 0, 'clean'), { folds: 5, maxExcess: 0.05, minCell: 30 });
    expect(dropped.size).toBeLessThanOrEqual(10);
  });
});
