import type { Trajectory } from '../trajectories/types.js';
import { normaliseChoice } from './normalise.js';

/**
 * What a question's prompt already shows and what only the future holds, for the two
 * deterministic defect filters: a distractor copied from the prompt is eliminable by copy
 * detection, and one naming a string first seen after the anchor leaks the future.
 */

/** Tokens that name something (a path, number, identifier, URL, proper noun, flag), lower-cased. */
export function entityTokens(text: string, limit = 4000): Set<string> {
  const out = new Set<string>();
  for (const m of text.matchAll(/[A-Za-z0-9_][A-Za-z0-9_./:{}@#-]*[A-Za-z0-9_}]|[A-Za-z0-9]/g)) {
    const w = m[0];
    const nameLike =
      /[0-9_/{}]/.test(w) || /\.[A-Za-z]/.test(w) || /[a-z][A-Z]/.test(w) || (/^[A-Z]/.test(w) && w.length >= 3 && !sentenceStart(text, m.index!));
    if (!nameLike || w.length < 2 || /^\d$/.test(w)) continue;
    out.add(w.toLowerCase());
    if (out.size >= limit) break;
  }
  return out;
}

function sentenceStart(text: string, at: number): boolean {
  const before = text.slice(Math.max(0, at - 3), at);
  return at === 0 || /(^|[.!?:"'(\[\n]\s*|\n)$/.test(before) || /["'(\[]$/.test(before);
}

export interface AnchorContext {
  /** Normalised text of everything the prompt shows before the options (goal, tools, earlier steps). */
  shown: string;
  /** Entity tokens of that text. */
  shownTokens: Set<string>;
  /** Entity tokens that first appear at or after the anchor's observation. */
  futureTokens: Set<string>;
}

interface StepFacts {
  /** Normalised text of the step's thought, plan and action (what a prompt can show of it). */
  shownText: string;
  actionTokens: Set<string>;
  observationText: string;
  observationTokens: Set<string>;
}

/** Per-step texts and tokens, computed once per trajectory: every kind and anchor reuses them. */
const stepFacts = new WeakMap<Trajectory, StepFacts[]>();

function factsOf(t: Trajectory): StepFacts[] {
  const hit = stepFacts.get(t);
  if (hit) return hit;
  const facts = t.steps.map((s) => {
    const act = [s.thought ?? '', s.plan ?? '', s.action.text, s.action.raw ?? '', JSON.stringify(s.action.args)].join('\n');
    const obs = s.observation ?? '';
    return { shownText: normaliseChoice(act), actionTokens: entityTokens(act, 1e6), observationText: normaliseChoice(obs), observationTokens: entityTokens(obs, 1e6) };
  });
  stepFacts.set(t, facts);
  return facts;
}

/** Entity tokens of step `j`'s thought, plan and action (cached per trajectory). */
export function stepActionTokens(t: Trajectory, j: number): ReadonlySet<string> {
  return factsOf(t)[j]?.actionTokens ?? new Set();
}

export function anchorContext(t: Trajectory, position: number, extraShown: readonly string[] = []): AnchorContext {
  const facts = factsOf(t);
  const head = [t.task.goal, ...extraShown].join('\n');
  const shownTokens = entityTokens(head, 1e6);
  const parts = [normaliseChoice(head)];
  for (const f of facts.slice(0, position)) {
    for (const w of f.actionTokens) shownTokens.add(w);
    for (const w of f.observationTokens) shownTokens.add(w);
    parts.push(f.shownText, f.observationText);
  }
  const futureTokens = new Set<string>();
  const addFuture = (tokens: Iterable<string>) => {
    for (const w of tokens) if (!shownTokens.has(w)) futureTokens.add(w);
  };
  if (facts[position]) addFuture(facts[position]!.observationTokens);
  for (const f of facts.slice(position + 1)) {
    addFuture(f.actionTokens);
    addFuture(f.observationTokens);
  }
  addFuture(entityTokens(t.outcome.submission ?? ''));
  return { shown: parts.join('\n'), shownTokens, futureTokens };
}

/** True when the option's text is shown verbatim (after normalisation) before the options. */
export function copiedFromPrompt(ctx: AnchorContext, option: string): boolean {
  const key = normaliseChoice(option);
  return key.length > 0 && ctx.shown.includes(key);
}

/** A string of the option first seen after the anchor (and not in the gold), or null. */
export function futureString(ctx: AnchorContext, option: string, gold: string): string | null {
  const goldTokens = entityTokens(gold);
  for (const w of entityTokens(option)) if (ctx.futureTokens.has(w) && !goldTokens.has(w)) return w;
  return null;
}
