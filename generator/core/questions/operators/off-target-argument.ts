import type { Trajectory } from '../../trajectories/types.js';
import { joins, pathsIn, replaceInCandidate, replaceWhole, substitutionRepeats } from './edit.js';
import { candidateText, pairFluency, priorText } from './grounding.js';
import { words } from '../audit/text.js';
import { sameNameClass } from './name-class.js';
import type { StepCandidate, StepOperator, StepOperatorContext } from './types.js';

export type EntityType = 'url' | 'path' | 'name' | 'number' | 'code';

/** Capitalised words that open sentences and instructions; never treated as names. */
const NOT_NAMES = new Set(
  'The This That These Those Let Let\'s Now Next Then First Finally Search Browse Open Find Look Check Run Use Try It We I If In On At For To From By With As An A And Or But Since So Step Observation Thought Action Title Body Url Error True False None Note Here There What Which Who When Where Why How Please Did Does Do Is Are Was Were Has Have Had Can Could Will Would Should'.split(' '),
);

/** One word of a name: capitalised, its hyphenated or apostrophe-joined parts included ("Donau-Universität", "O'Brien", "Sancheong-gun"). */
const NAME_WORD = String.raw`\p{Lu}\p{Ll}+(?:-\p{L}\p{Ll}*|['’]\p{Lu}\p{Ll}+)*`;
/** A name: name words on one line, with the particles of names between them. */
const NAME_RE = new RegExp(String.raw`(?<![\p{L}\p{N}\p{M}_])${NAME_WORD}(?:[^\S\n]+(?:${NAME_WORD}|(?:de|van|von|der|da)(?=[^\S\n]+\p{Lu})))*`, 'gu');

/** Entities of a text with their type, in order of first appearance, original case kept. */
export function entitiesIn(text: string): Array<{ text: string; type: EntityType }> {
  const out: Array<{ text: string; type: EntityType }> = [];
  const seen = new Set<string>();
  const add = (t: string, type: EntityType) => {
    const v = t.trim();
    if (v.length < 2 || seen.has(v)) return;
    seen.add(v);
    out.push({ text: v, type });
  };
  for (const m of text.matchAll(/https?:\/\/[^\s"'<>)\]]+/g)) add(m[0].replace(/[.,;]+$/, ''), 'url');
  const noUrls = text.replace(/https?:\/\/[^\s"'<>)\]]+/g, ' ');
  for (const p of pathsIn(noUrls, 60)) add(p, 'path');
  for (const m of noUrls.matchAll(/`([A-Za-z_][A-Za-z0-9_.]{2,60})`|\b([a-z][a-z0-9]*(?:_[a-z0-9]+)+|[a-z]+[A-Z][A-Za-z0-9]+)\b/g)) {
    const v = m[1] ?? m[2]!;
    if (!/\.[a-z]{1,4}$/.test(v)) add(v, 'code');
  }
  for (const m of noUrls.matchAll(NAME_RE)) {
    // A match continuing into the text around it is a part of a longer token ("Byte" of
    // "ByteDance", "Don" of "Don't"); swapping it would cut or glue words.
    if (joins(noUrls.slice(Math.max(0, m.index - 2), m.index), m[0]) || joins(m[0], noUrls.slice(m.index + m[0].length, m.index + m[0].length + 2))) continue;
    const words = m[0].split(/\s+/);
    // A single capitalised word opening a sentence is usually a verb ("Identify the …"), not a
    // name: swapping it for a name ("Niger the current president …") reads as broken text.
    if (words.length === 1 && (m.index === 0 || /[.!?:;\n"]\s*$/.test(noUrls.slice(Math.max(0, m.index - 4), m.index)))) continue;
    // Contractions ("I'll", "Let's", "We're") open sentences; they are not names.
    if (words.length === 1 && (NOT_NAMES.has(words[0]!) || /^[A-Z][a-z]{0,4}['’][a-z]{1,2}$/.test(words[0]!))) continue;
    add(NOT_NAMES.has(words[0]!) ? words.slice(1).join(' ') : m[0], 'name');
  }
  // A number is whole: not a piece of a decimal, a thousands group or a time, nor of a range or
  // date whose other part has another length ("17" or "2017" of "2017-18"; "1863-1916" keeps both).
  for (const m of noUrls.matchAll(/(?<![\w.]|\d[,:])\d{2,4}(?!\w|[.,:]\d)/g)) {
    const before = /(\d+)[-/]$/.exec(noUrls.slice(Math.max(0, m.index - 6), m.index))?.[1];
    const after = /^[-/](\d+)/.exec(noUrls.slice(m.index + m[0].length, m.index + m[0].length + 6))?.[1];
    if ((before && before.length !== m[0].length) || (after && after.length !== m[0].length)) continue;
    add(m[0], 'number');
  }
  return out;
}

/** The last anchor's prior entities: the operators of one anchor each ask for them in turn. */
let lastPrior: { t: Trajectory; position: number; entities: ReadonlyArray<{ text: string; type: EntityType }> } | null = null;

/** Entities the agent had met before `position` (goal, earlier steps and their observations); callers only read them. */
export function priorEntities(t: Trajectory, position: number): ReadonlyArray<{ text: string; type: EntityType }> {
  if (lastPrior?.t === t && lastPrior.position === position) return lastPrior.entities;
  lastPrior = { t, position, entities: readPriorEntities(t, position) };
  return lastPrior.entities;
}

function readPriorEntities(t: Trajectory, position: number): Array<{ text: string; type: EntityType }> {
  return entitiesIn(priorJoined(t, position));
}

function priorJoined(t: Trajectory, position: number): string {
  const parts = [t.task.goal];
  for (const s of t.steps.slice(0, position)) parts.push(s.thought ?? '', s.action.text, (s.observation ?? '').slice(0, 6000));
  return parts.join('\n');
}

/** The last anchor's lower-case words: read only when a name is swapped. */
let lastLowerCase: { t: Trajectory; position: number; words: ReadonlySet<string> } | null = null;

/** The words the context before `position` writes in lower case (name-class.ts reads a single capitalised word it also writes so as a common word). */
export function priorLowerCase(t: Trajectory, position: number): ReadonlySet<string> {
  if (lastLowerCase?.t !== t || lastLowerCase.position !== position) {
    lastLowerCase = { t, position, words: new Set(priorJoined(t, position).match(/(?<![\p{L}\p{N}_])\p{Ll}[\p{Ll}'’-]*/gu) ?? []) };
  }
  return lastLowerCase.words;
}

/**
 * Entity substitution: the same step aimed at another real entity of the same kind that the
 * agent had already met (another person, file, function, URL, year), so the text stays fluent
 * and only understanding which entity the next step needs rejects it.
 */
export const offTargetArgument: StepOperator = {
  name: 'off_target_argument',
  description: 'the same step aimed at another entity of the same kind from this trajectory (name, file, function, URL, number)',
  propose({ rng, trajectory, position, gold }) {
    const goldText = `${gold.plan}\n${gold.action.text}`;
    const targets = entitiesIn(goldText).filter((e) => gold.action.text.includes(e.text) || JSON.stringify(gold.action.args).includes(e.text));
    if (targets.length === 0) return [];
    const prior = priorEntities(trajectory, position).filter((e) => !goldText.includes(e.text));
    const seen = priorText(trajectory, position);
    const out: StepCandidate[] = [];
    // Up to five variants: each target entity in turn, each time with another replacement.
    const shuffled = rng.shuffle(targets);
    const usedTo = new Set<string>();
    // Each target's possible replacements, read once: only which were used changes from round to round.
    const fitting = new Map<(typeof shuffled)[number], Array<{ text: string; type: EntityType }>>();
    // The gold with one replacement made, and its fluency: a later round weighs most of the same replacements again.
    const variants = new Map<string, { c: StepCandidate; fluency: number }>();
    const variant = (from: string, to: string) => {
      const key = `${from}\u0000${to}`;
      let v = variants.get(key);
      if (v === undefined) {
        const c = replaceInCandidate(gold, from, to);
        variants.set(key, (v = { c, fluency: pairFluency(candidateText(c), seen) }));
      }
      return v;
    };
    for (let round = 0; round < 3 && out.length < 5; round++) {
      for (const target of shuffled) {
        if (out.length >= 5) break;
        let fits = fitting.get(target);
        if (fits === undefined) fitting.set(target, (fits = replacementsFor(target, prior, gold, goldText, () => priorLowerCase(trajectory, position))));
        const sameType = fits.filter((e) => !usedTo.has(e.text));
        // Names lean short, as borrowed steps do (the gold must be the longest option 1/K of the
        // time); paths, code and URLs keep about their length.
        const [low, high] = target.type === 'name' ? [0.5, 1.2] : [0.67, 1.5];
        const close = sameType.filter((e) => e.text.length >= target.text.length * low && e.text.length <= target.text.length * high);
        const pool = close.length > 0 ? close : sameType;
        const to: string | undefined = mostFluent(rng.shuffle(pool.slice(0, 40)), (e) => variant(target.text, e.text).fluency)?.text;
        if (!to || to === target.text) continue;
        usedTo.add(to);
        out.push({ ...variant(target.text, to).c, reason: `about ${to} instead of ${target.text}, which is what the next step needs` });
      }
    }
    return out;
  },
};

/** Entities of the context that can stand where `target` stands in the gold: same type, shape and kind of name, not a part of it, no repeated word. */
function replacementsFor(
  target: { text: string; type: EntityType },
  prior: ReadonlyArray<{ text: string; type: EntityType }>,
  gold: StepCandidate,
  goldText: string,
  lowerCase: () => ReadonlySet<string>,
): Array<{ text: string; type: EntityType }> {
  return prior.filter(
    (e) =>
      e.type === target.type &&
      sameShape(e.text, target.text) &&
      !e.text.includes(target.text) &&
      !target.text.includes(e.text) &&
      (target.type !== 'number' || numberFits(e.text, target.text, goldText)) &&
      // After the string checks: a name not yet classed is tagged (cached per name).
      (target.type !== 'name' || sameNameClass(target.text, e.text, lowerCase())) &&
      !substitutionRepeats(gold, target.text, e.text),
  );
}

/**
 * `count` versions of the gold that each put another context entity in the same one place (one
 * the goal and the previous step do not name when there is one, then the most fluent): the
 * options then differ from each other exactly as they differ from the gold, so no option is the
 * one the others vary.
 * The most fluent replacements under the context, of a seeded sample. Empty when no target has `count`.
 */
export function sameSlotSwaps({ rng, trajectory, position, gold, corpus }: StepOperatorContext, count: number, spare = 3): StepCandidate[] {
  const goldText = `${gold.plan}\n${gold.action.text}`;
  const targets = entitiesIn(goldText).filter((e) => gold.action.text.includes(e.text) || JSON.stringify(gold.action.args).includes(e.text));
  const allPrior = priorEntities(trajectory, position);
  const priorTexts = new Set(allPrior.map((e) => e.text));
  const prior = allPrior.filter((e) => !goldText.includes(e.text));
  const seen = priorText(trajectory, position);
  // A target the context never showed (a new name the step brings in) is replaced by names the
  // context never showed either, taken from similar tasks: otherwise "the option with the new
  // name" is the gold. A target the context shows is replaced by others it shows.
  let outside: Array<{ text: string; type: EntityType }> | null = null;
  const poolFor = (target: { text: string; type: EntityType }) => {
    if (priorTexts.has(target.text)) return prior;
    outside ??= outsideEntities(trajectory, corpus, seen);
    return outside;
  };
  // A place neither the goal nor the previous step names, when the gold has one: swapping the
  // goal's or the previous step's entity leaves the gold the one option that shares them, and
  // "the option most like the previous step" or "most like the goal" finds it. Among those, the
  // place whose swaps read most fluently in this context (a country where the context speaks of
  // countries, not a title), then the one with most replacements, then the first.
  const previous = trajectory.steps[position - 1];
  const focalText = `${trajectory.task.goal}\n${previous ? `${previous.thought ?? ''}\n${previous.plan ?? ''}\n${previous.action.text}` : ''}`.toLowerCase();
  let best: SwapPlace | null = null;
  for (const target of targets) {
    const focal = focalText.includes(target.text.toLowerCase());
    const fits = replacementsFor(target, poolFor(target), gold, goldText, () => priorLowerCase(trajectory, position));
    if (fits.length < count) continue;
    const scored = rng
      .fork(target.text)
      .shuffle(fits.slice(0, 40))
      .map((e, order) => ({ e, order, c: replaceInCandidate(gold, target.text, e.text) }))
      .map((x) => ({ ...x, fluency: pairFluency(candidateText(x.c), seen) }))
      .sort((a, b) => b.fluency - a.fluency || a.order - b.order);
    const fluency = scored.slice(0, count).reduce((s, x) => s + x.fluency, 0) / count;
    const place: SwapPlace = { target, swaps: scored.slice(0, count + spare), fluency, fits: fits.length, focal };
    if (!best || betterPlace(place, best)) best = place;
  }
  if (!best) return [];
  const target = best.target;
  return best.swaps.map((x) => ({ ...x.c, reason: `about ${x.e.text} instead of ${target.text}, which is what the next step needs` }));
}

/** A place of the gold that same-slot swaps may vary, with its best swaps. */
interface SwapPlace {
  target: { text: string; type: EntityType };
  swaps: Array<{ e: { text: string }; c: StepCandidate }>;
  /** Mean fluency of its `count` most fluent swaps. */
  fluency: number;
  /** How many replacements it has. */
  fits: number;
  /** Whether the goal or the previous step names it. */
  focal: boolean;
}

/** Whether place `a` is the one to vary rather than `b`: one no focal text names, then more fluent swaps, then more replacements (the earlier place keeps a tie). */
function betterPlace(a: SwapPlace, b: SwapPlace): boolean {
  if (a.focal !== b.focal) return !a.focal;
  if (Math.abs(a.fluency - b.fluency) > 1e-12) return a.fluency > b.fluency;
  return a.fits > b.fits;
}

/** Entities read from one similar task, in order of first appearance (its goal's first). */
const OUTSIDE_PER_TRAJECTORY = 200;

const trajectoryEntities = new WeakMap<Trajectory, ReadonlyArray<{ text: string; type: EntityType }>>();

/** Entities of the most similar other tasks that this trajectory's context never shows, in similarity order. */
function outsideEntities(t: Trajectory, corpus: StepOperatorContext['corpus'], seen: ReturnType<typeof priorText>): Array<{ text: string; type: EntityType }> {
  const out: Array<{ text: string; type: EntityType }> = [];
  const taken = new Set<string>();
  for (const other of corpus.similar(t).slice(0, 8)) {
    if (other === t || other.task.goal === t.task.goal) continue;
    let entities = trajectoryEntities.get(other);
    if (entities === undefined) {
      // Kept per trajectory for the run's other anchors: a bounded number, each text copied out
      // of the joined trajectory text it was matched in (a substring would keep all of it alive).
      entities = readPriorEntities(other, other.steps.length)
        .slice(0, OUTSIDE_PER_TRAJECTORY)
        .map((e) => ({ text: (' ' + e.text).slice(1), type: e.type }));
      trajectoryEntities.set(other, entities);
    }
    for (const e of entities) {
      if (taken.has(e.text) || words(e.text).some((w) => seen.words.has(w))) continue;
      taken.add(e.text);
      out.push(e);
    }
  }
  return out;
}

/**
 * A name replaces a name of as many words (a person's full name another full name, a one-word
 * place another one-word name), so the swap does not read as a title where a name stood
 * ("current president of President …"); a number replaces a number of as many digits (a year
 * another year: "17年1月" is no date); other types have no shape.
 */
export function sameShape(candidate: string, target: string): boolean {
  const count = (s: string) => s.split(/\s+/).length;
  if (/^\d+$/.test(target)) return /^\d+$/.test(candidate) && candidate.length === target.length;
  return !/^[A-Z]/.test(target) || count(candidate) === count(target);
}

const MONTHS = 'January|February|March|April|May|June|July|August|September|October|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec';
const DAY_BEFORE = new RegExp(`(?:${MONTHS})\\.?\\s+$`);
const DAY_AFTER = new RegExp(`^(?:st|nd|rd|th)?\\s+(?:of\\s+)?(?:${MONTHS})\\b|^[日号號]`);

/**
 * Whether number `candidate` can stand wherever `target` stands in `text` as a date part: a
 * month (before 月) is 1–12, a day (before 日/号, or next to a month name) 1–31, so a swapped
 * date stays a date of the same shape ("2025年1月" → "2022年1月", never "17年1月" or "2025年31月").
 */
export function numberFits(candidate: string, target: string, text: string): boolean {
  const n = Number(candidate);
  const marked = replaceWhole(text, target, '\u0000');
  for (let at = marked.indexOf('\u0000'); at >= 0; at = marked.indexOf('\u0000', at + 1)) {
    const before = marked.slice(Math.max(0, at - 12), at);
    const after = marked.slice(at + 1, at + 16);
    if (after.startsWith('月') && (n < 1 || n > 12)) return false;
    if ((DAY_AFTER.test(after) || DAY_BEFORE.test(before)) && target.length <= 2 && (n < 1 || n > 31)) return false;
  }
  return true;
}

/**
 * The replacement whose swapped-in step reads most like the context: the most word pairs the
 * context shows in that order ("President of Chad" where the context speaks of Chad's
 * president). The first of equals in the given (seeded) order.
 */
function mostFluent<T>(pool: readonly T[], fluency: (e: T) => number): T | undefined {
  let best: T | undefined;
  let bestScore = -1;
  for (const e of pool) {
    const score = fluency(e);
    if (score > bestScore) {
      best = e;
      bestScore = score;
    }
  }
  return best;
}
