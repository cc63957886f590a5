import type { ToolSpec, Trajectory } from '../../trajectories/types.js';
import { type AnchorContext, anchorContext, copiedFromPrompt, futureString } from '../context.js';
import { pickDistinct, proposeSteps } from '../distractors.js';
import { normaliseChoice } from '../normalise.js';
import type { StepOperatorName } from '../operators/index.js';
import type { StepCandidate } from '../operators/types.js';
import { candidateOf } from '../plans.js';
import { sameSlotSwaps } from '../operators/off-target-argument.js';
import { offeredTools, toolOf } from '../tools.js';
import type { QuestionKind } from '../types.js';
import { historyBefore, toolListText } from '../views.js';
import { type KindContext, type McqDraft, type QuestionDraft, type SkipReason, anchorOrder } from './module.js';
import { balanceCue, topicContext } from './cues.js';
import { stepEcho } from '../step-echo.js';
import { stableStringify } from '../../kernel/stable-json.js';

interface Option {
  text: string;
  reason: string;
  /** The call the option makes (tool and arguments), when the options show it (`callShown`). */
  call?: string;
}

export interface StepChoiceSpec {
  operators: readonly StepOperatorName[];
  render: (c: StepCandidate) => string;
  weights?: Readonly<Record<string, number>>;
  /** Plan kinds: the gold must be an intent the agent wrote (else the anchor is skipped). */
  needsIntent?: boolean;
  /**
   * When the gold has a place that context entities can fill, every distractor is the gold with
   * another entity in that same place: the options differ from each other exactly as they
   * differ from the gold, so no option is the one the others vary, and borrowed steps (which
   * read as another task's) are offered only where no such place exists.
   */
  sameSlot?: boolean;
  /**
   * The options show the call a step makes (tool and arguments) beside its plan: two options
   * making one call are one step worded twice, so a distractor never repeats the gold's call or
   * another distractor's ("Confirm …" and "Verify … from a reliable source" opening one page).
   */
  callShown?: boolean;
}

/** A step's call: its tool and its arguments with their keys in order. */
export function callKey(c: Pick<StepCandidate, 'action'>): string {
  return `${toolOf(c.action) ?? ''}\u0000${stableStringify(c.action.args ?? {})}`;
}

/** A classic SWE-agent `edit N:M` shows no body once put on one line: golds and distractors differ only by line numbers. */
function editBodyMissing(text: string): boolean {
  return /^edit\s+\d+:\d+$/.test(normaliseChoice(text));
}

/** The final answer (or its gold) is in an observation before the anchor: "verify" and "finish" are then both reasonable. */
function answerObserved(t: Trajectory, position: number): boolean {
  const answers = [t.task.gold_answer, t.outcome.submission].map((a) => normaliseChoice(a ?? '')).filter((a) => a.length >= 3 && a.length <= 120);
  if (answers.length === 0) return false;
  return t.steps.slice(0, position).some((s) => {
    const obs = normaliseChoice(s.observation ?? '');
    return answers.some((a) => obs.includes(a));
  });
}

/**
 * Filters a candidate distractor against the deterministic defect classes: a tool the prompt
 * does not offer, text the prompt already shows, or a string first seen after the anchor.
 */
export function distractorProblem(c: StepCandidate, text: string, offered: ReadonlySet<string>, ctx: AnchorContext, goldText: string): string | null {
  const tool = toolOf(c.action);
  if (c.action.kind !== 'message' && tool && !offered.has(tool)) return 'tool-not-offered';
  if (copiedFromPrompt(ctx, text)) return 'copied-from-prompt';
  if (futureString(ctx, text, goldText)) return 'future-string';
  return null;
}

/**
 * Shared machinery of the "pick the next step" kinds: the gold is step `position`, the
 * distractors come from step operators, and `render` turns a candidate into choice text.
 */
export function nextStepChoices(t: Trajectory, position: number, ctx: KindContext, spec: StepChoiceSpec, offered: ToolSpec[]): McqDraft | SkipReason {
  const step = t.steps[position]!;
  const gold: StepCandidate = candidateOf(step);
  if (spec.needsIntent && !gold.planGiven) return 'no-intent';
  const goldText = spec.render(gold);
  if (editBodyMissing(goldText)) return 'edit-body-missing';
  const names = new Set(offered.map((x) => x.name));
  const goldTool = toolOf(step.action);
  if (step.action.kind !== 'message' && goldTool && !names.has(goldTool)) return 'gold-tool-not-offered';
  const shownSteps = t.steps.slice(0, position).map((s) => spec.render(candidateOf(s)));
  const context = anchorContext(t, position, [toolListText(offered), ...shownSteps]);
  // A step that repeats an earlier one is in the prompt already: the gold could be copied.
  if (copiedFromPrompt(context, goldText) || shownSteps.some((s) => normaliseChoice(s) === normaliseChoice(goldText))) return 'repeated-step';
  const rng = ctx.rng.fork(`step${position}`);
  const finishAllowed = !answerObserved(t, position);
  const proposals = proposeSteps({ rng, trajectory: t, position, gold, corpus: ctx.corpus, offered: names }, spec.operators);
  // The step right after the gold may be an equally valid next step (e.g. two independent reads).
  const excluded = new Set<string>();
  const following = t.steps[position + 1];
  if (following) excluded.add(normaliseChoice(spec.render(candidateOf(following))));
  // Plan kinds: a plan derived from an action reads unlike the agent's own intents (shorter,
  // formulaic), so beside an intent gold only intent-worded distractors are offered.
  const usable = (c: StepCandidate) => !spec.needsIntent || c.planGiven;
  const asOption = (c: StepCandidate, operator: string, text: string): Option => ({ text, reason: c.reason ?? `a ${operator.replace(/_/g, ' ')} distractor`, ...(spec.callShown ? { call: callKey(c) } : {}) });
  const filtered = proposals.map((p) => ({
    operator: p.operator,
    values: p.values
      .filter((c) => c.action.kind !== 'finish' && usable(c))
      .map((c) => ({ c, text: spec.render(c) }))
      .filter(({ c, text }) => !editBodyMissing(text) && distractorProblem(c, text, names, context, goldText) === null)
      .map(({ c, text }) => asOption(c, p.operator, text)),
  }));
  // The run's own finish step, which the build may offer in place of a distractor (finish-pairs.ts).
  // Its text is the same whether it is a gold (at the end) or a distractor (earlier), so being
  // first seen later is no cue and not checked.
  let finishOption: McqDraft['finishOption'];
  if (finishAllowed && gold.action.kind !== 'finish') {
    for (const p of proposals) {
      for (const c of p.values) {
        if (finishOption || c.action.kind !== 'finish' || !usable(c)) continue;
        const text = spec.render(c);
        const tool = toolOf(c.action);
        if (normaliseChoice(text) === normaliseChoice(goldText) || (tool && !names.has(tool)) || copiedFromPrompt(context, text)) continue;
        finishOption = { text, source: p.operator, reason: asOption(c, p.operator, text).reason };
      }
    }
  }
  const withFinish = (draft: McqDraft): McqDraft => (finishOption ? { ...draft, finishOption } : draft);
  const need = ctx.choices - 1;
  if (spec.sameSlot) {
    const setting: SlotSetting = { rng, names, context, goldText, goldCall: callKey(gold), excluded, usable };
    // A finish without a place to swap (no answer in its arguments) has a re-check built the same
    // way for distractors, so a finish among swaps is no more the gold than one among borrowed
    // steps (finish-pairs.ts).
    const slot = sameSlotDistractors(t, position, ctx, spec, need, setting) ?? (gold.action.kind === 'finish' ? recheckDistractors(t, position, ctx, need, setting, spec.render) : null);
    if (slot) {
      const draft = arrangeWithReasons(rng.fork('arrange'), goldText, slot);
      // The most fluent swaps are shown, and offered to the filter as its only choice: it may drop
      // the question, but not trade a fluent swap for a clumsy one to meet its own fluency target
      // (on the shared corpus that choosing made the gold easier to find for an outside adversary).
      draft.alternatives = slot.map((p) => ({ text: p.value.text, source: p.operator, reason: p.value.reason }));
      // How closely the options repeat a step the prompt shows: the real step's for a swap
      // question, its re-checks' for a finish gold (finish-pairs.ts pairs like with like).
      const shownCandidates = t.steps.slice(0, position).map((x) => candidateOf(x));
      const echo = gold.action.kind === 'finish' ? slot.reduce((sum, o) => sum + stepEcho(o.candidate, shownCandidates), 0) / slot.length : stepEcho(gold, shownCandidates);
      draft.swap = { echo };
      return withFinish(draft);
    }
  }
  // A pool larger than the options leaves the cue balancing room to choose.
  // Where the options show the call, an option repeating another's call is a duplicate too.
  const keyOf = (o: Option) => (spec.callShown ? [normaliseChoice(o.text), o.call!] : normaliseChoice(o.text));
  const goldKey = spec.callShown ? [normaliseChoice(goldText), callKey(gold)] : normaliseChoice(goldText);
  const pool = pickDistinct(rng.fork('pick'), filtered, keyOf, goldKey, excluded, need * 5, spec.weights);
  if (pool.length < need) return 'too-few-distractors';
  // The words of the question segment as the prompt shows it (goal, earlier steps, cut observations), the audit's topic context.
  const segmentWords = topicContext([t.task.goal, ...historyBefore(t, position, ctx.observationChars).flatMap((v, j) => [shownSteps[j]!, v.observation ?? ''])]);
  const { picked, topicForced } = balanceCue(rng.fork('cue'), goldText, pool, need, segmentWords);
  if (topicForced) return 'topic-cue';
  const draft = arrangeWithReasons(rng.fork('arrange'), goldText, picked);
  draft.alternatives = pool.map((p) => ({ text: p.value.text, source: p.operator, reason: p.value.reason }));
  return withFinish(draft);
}

/**
 * Distractors that each put another entity in the one place of the gold its entity swaps can
 * fill (`sameSlotSwaps`), or null when fewer than `need` of them pass the defect checks.
 */
function sameSlotDistractors(t: Trajectory, position: number, ctx: KindContext, spec: StepChoiceSpec, need: number, s: SlotSetting): SlotOption[] | null {
  const swaps = sameSlotSwaps({ rng: s.rng.fork('slot'), trajectory: t, position, gold: candidateOf(t.steps[position]!), corpus: ctx.corpus, offered: s.names }, need, SLOT_SPARE);
  const picked = passingSwaps(swaps, need, s, spec.render, (c) => c.reason ?? 'an off-target distractor');
  return picked.length === need ? picked : null;
}

/**
 * Distractors for a finish gold, built as a swap question's are: the latest earlier step of the
 * run with a swappable place, repeated with another entity in that place, `need` times (the step
 * itself is in the prompt, so never offered). Once the run has its answer, a further search is
 * not its next step, and one about another entity is off target as well. Null when no earlier
 * step gives `need` swaps that pass the defect checks.
 */
function recheckDistractors(t: Trajectory, position: number, ctx: KindContext, need: number, s: SlotSetting, render: (c: StepCandidate) => string): SlotOption[] | null {
  for (let p = position - 1; p >= 0; p--) {
    const base = candidateOf(t.steps[p]!);
    if (base.action.kind === 'finish' || !s.usable(base)) continue;
    const swaps = sameSlotSwaps({ rng: s.rng.fork(`recheck${p}`), trajectory: t, position, gold: base, corpus: ctx.corpus, offered: s.names }, need, SLOT_SPARE);
    const reason = (c: StepCandidate) => `step ${p + 1} again${c.reason ? `, ${c.reason.replace(/, which is what the next step needs$/, '')}` : ''}: the run has its answer and finishes here`;
    const picked = passingSwaps(swaps, need, s, render, reason);
    if (picked.length === need) return picked;
  }
  return null;
}

type SlotOption = { value: Option; operator: string; candidate: StepCandidate };

/** The first `need` swaps, in order, that are usable, distinct and pass the defect checks. */
function passingSwaps(swaps: readonly StepCandidate[], need: number, s: SlotSetting, render: (c: StepCandidate) => string, reasonOf: (c: StepCandidate) => string): SlotOption[] {
  const taken = new Set([normaliseChoice(s.goldText), ...s.excluded]);
  const calls = new Set([s.goldCall]);
  const picked: SlotOption[] = [];
  for (const c of swaps) {
    if (picked.length >= need) break;
    const text = render(c);
    if (!s.usable(c) || taken.has(normaliseChoice(text)) || calls.has(callKey(c)) || distractorProblem(c, text, s.names, s.context, s.goldText) !== null) continue;
    taken.add(normaliseChoice(text));
    calls.add(callKey(c));
    picked.push({ value: { text, reason: reasonOf(c) }, operator: 'off_target_argument', candidate: c });
  }
  return picked;
}

/** Entity swaps asked for beyond those needed, in case some fail the defect checks. */
const SLOT_SPARE = 3;

interface SlotSetting {
  rng: KindContext['rng'];
  /** The gold's call (`callKey`): a swap that leaves it unchanged (the entity stood in the plan only) is the gold again. */
  goldCall: string;
  names: ReadonlySet<string>;
  context: AnchorContext;
  goldText: string;
  excluded: ReadonlySet<string>;
  usable: (c: StepCandidate) => boolean;
}

/** Places the gold at a seeded position among the distractors, keeping sources and reasons aligned. */
export function arrangeWithReasons(rng: KindContext['rng'], gold: string, distractors: Array<{ value: Option; operator: string }>): McqDraft {
  const goldAt = rng.int(distractors.length + 1);
  const order = rng.shuffle(distractors);
  const choices = order.map((d) => d.value.text);
  const sources = order.map((d) => d.operator);
  const reasons = order.map((d) => d.value.reason);
  choices.splice(goldAt, 0, gold);
  sources.splice(goldAt, 0, 'gold');
  reasons.splice(goldAt, 0, '');
  return { choices, gold: goldAt, sources, reasons };
}

/**
 * Drafts of a "pick the next step" kind: one question per chosen anchor among `eligible`
 * step positions, skipping anchors whose choices cannot be built (counted by reason).
 */
export function nextStepDrafts(
  t: Trajectory,
  ctx: KindContext,
  spec: StepChoiceSpec & {
    kind: QuestionKind;
    eligible: number[];
    fields: Record<string, unknown>;
    answerStem: string;
    /** Whether the template shows the offered tool list (`tools` field). */
    showTools?: boolean;
  },
): { drafts: QuestionDraft[]; skipped: SkipReason[] } {
  const drafts: QuestionDraft[] = [];
  const skipped: SkipReason[] = [];
  const built: Array<{ position: number; offered: ToolSpec[]; mcq: McqDraft }> = [];
  // A finish gold is kept here; the build pairs it with premature finishes offered in other
  // questions of its task and language, or drops it (finish-pairs.ts).
  for (const i of anchorOrder(ctx, spec.eligible)) {
    if (built.length >= ctx.maxPerTrajectory) break;
    const offered = offeredTools(t, i).tools;
    const mcq = nextStepChoices(t, i, ctx, spec, offered);
    if (typeof mcq === 'string') {
      skipped.push(mcq);
      continue;
    }
    built.push({ position: i, offered, mcq });
  }
  for (const { position: i, offered, mcq } of built) {
    drafts.push({
      kind: spec.kind,
      step: i,
      fields: { ...spec.fields, ...(spec.showTools ? { tools: toolListText(offered) } : {}) },
      history: historyBefore(t, i, ctx.observationChars),
      answerStem: spec.answerStem,
      answerSuffix: ')',
      mcq,
      offeredTools: offered.map((x) => x.name),
    });
  }
  drafts.sort((a, b) => a.step! - b.step!);
  return { drafts, skipped };
}
