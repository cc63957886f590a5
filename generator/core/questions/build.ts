import type { ProgressCallback } from '../kernel/progress.js';
import type { Finding } from '../kernel/findings.js';
import { findingFactory } from '../kernel/findings.js';
import { Rng } from '../kernel/rng.js';
import { contentId, sha256 } from '../kernel/stable-json.js';
import type { Vfs } from '../kernel/vfs.js';
import { type Trajectory, isProvenSuccess } from '../trajectories/types.js';
import { lengthBucket } from './buckets.js';
import { questionFindings } from './findings.js';
import { addQuestionExtras, multiSelectQuestion } from './question-extras.js';
import { DEFAULT_KINDS, QUESTION_KIND_INFO, taskFor } from './kinds.js';
import { modelDistractor, rewritePlans, type LlmAssist } from './llm-assist.js';
import { planOf } from './plans.js';
import { offeredTools } from './tools.js';
import { validateQuestion } from './read-questions.js';
import { type TemplateSet, loadTemplates, renderBare, renderWithinBudget } from './render.js';
import { answerStemFor, omittedMarkersFor, questionHeaderFor } from './stems-zh.js';
import { type FilterDropReason, filterByTask } from './adversarial-filter.js';
import { pairFinishesOf } from './finish-pairs.js';
import { featuresOffThread, postCores } from './adversarial-thread.js';
import { collectGarbage, collectGarbageOver } from '../kernel/collect-garbage.js';
import { flattened } from '../kernel/flattened.js';
import { DraftSplit, OFF_THREAD_KINDS } from './generate-thread.js';
import { corporaByLanguage, draftTrajectory } from './drafting.js';
import { nearDuplicateKey, questionLanguage, sourceGroups } from './build-keys.js';
import { chooseShots, fewshotSplit, shotPools } from './build-shots.js';
import { balanceGoldPositions } from './gold-positions.js';
import { type TokenizerName, loadTokenCounter } from './tokenizer.js';
import { QUESTION_SCHEMA_VERSION, type Question, type QuestionKind } from './types.js';
import { QUESTION_TYPES, type QuestionDraft } from './types/index.js';
import type { PlanHistory } from './types/module.js';

export { countByKind, lengthBucketsByKind } from './build-summary.js';
export { balanceGoldPositions } from './gold-positions.js';
export { languageOf } from './build-keys.js';
export { BUILD_DEFAULTS, type BuildOptions, type BuildResult } from './build-options.js';
import { BUILD_DEFAULTS, type BuildOptions, type BuildResult } from './build-options.js';

const make = findingFactory(questionFindings);


/** Most kinds generated and not yet finished (their drafts held) when the next kind is generated. */
const LOOKAHEAD = 1;

/**
 * Growth of the build thread's heap since its last full collection past which a kind boundary
 * collects at once (`collectGarbageOver`): what a kind's generating, rendering and handing over
 * left behind, which V8 would otherwise carry into the next kind while the filter's workers grow.
 */
const COLLECT_OVER_BYTES = 64 * 2 ** 20;

/**
 * Builds APTBench-style questions from trajectories. Pure apart from template loading:
 * trajectories are processed in traj_id order and every random draw comes from a stream
 * forked by (kind, trajectory), so output does not depend on input order.
 */
export async function buildQuestions(trajectories: Trajectory[], options: BuildOptions = {}, onProgress?: ProgressCallback): Promise<BuildResult> {
  const seed = options.seed ?? BUILD_DEFAULTS.seed;
  const kinds = options.kinds ?? DEFAULT_KINDS;
  const choices = options.choices ?? BUILD_DEFAULTS.choices;
  const budget = options.budgetTokens ?? BUILD_DEFAULTS.budgetTokens;
  const shotsWanted = options.shots ?? BUILD_DEFAULTS.shots;
  if (!Number.isInteger(choices) || choices < 2 || choices > 26) throw new RangeError(`choices must be an integer in 2..26, got ${choices}`);
  if (!Number.isInteger(budget) || budget < 1) throw new RangeError(`budget must be a positive integer, got ${budget}`);
  const minTokens = options.minTokens ?? 0;
  if (!Number.isInteger(minTokens) || minTokens < 0 || minTokens > budget) throw new RangeError(`minTokens must be an integer in 0..budget (${budget}), got ${minTokens}`);

  const findings: Finding[] = [];
  const skipped: Record<string, number> = {};
  const skip = (key: string) => (skipped[key] = (skipped[key] ?? 0) + 1);

  // Order-independence and duplicate traj_ids: sort, keep the first of each id.
  const byId = new Map<string, Trajectory>();
  for (const t of trajectories) {
    if (byId.has(t.traj_id)) skip('trajectory:duplicate-id');
    else byId.set(t.traj_id, t);
  }
  let usable = [...byId.values()].sort((a, b) => (a.traj_id < b.traj_id ? -1 : a.traj_id > b.traj_id ? 1 : 0));
  if (!options.includeUnproven) {
    const unproven = usable.filter((t) => !isProvenSuccess(t));
    if (unproven.length > 0) {
      for (let i = 0; i < unproven.length; i++) skip('trajectory:unproven');
      findings.push(make('build-unproven-excluded', {}, { count: unproven.length }));
    }
    usable = usable.filter(isProvenSuccess);
  }
  if (usable.length === 0) {
    findings.push(make('build-no-trajectories', {}, { reason: trajectories.length === 0 ? 'none were read' : 'none is a proven success' }));
    return { questions: [], count: 0, findings, skipped };
  }

  // Each language is its own corpus: its questions get instructions, stems, shots and borrowed
  // distractors in that language only (a Chinese question never shows an English example).
  const languages = [...new Set(usable.map(questionLanguage))].sort();
  const templatesByLanguage = new Map<string, TemplateSet>();
  for (const language of languages) {
    if (options.templates) {
      templatesByLanguage.set(language, options.templates);
      continue;
    }
    const vfs = options.vfs ?? (await import('../kernel/node-vfs.js')).nodeVfs;
    const loaded = await loadTemplates(vfs, kinds.map((k) => QUESTION_TYPES[k].template), options.templatesDir, language);
    findings.push(...loaded.findings);
    templatesByLanguage.set(language, loaded.templates);
  }
  const counter = await loadTokenCounter(options.tokenizer ?? BUILD_DEFAULTS.tokenizer);

  const corpusByLanguage = corporaByLanguage(usable);
  // Across languages: a translated run belongs to its original's research question.
  const groups = sourceGroups(usable);
  const root = new Rng(seed);
  const fewshotIds = fewshotSplit(usable, groups, seed, options.fewshotFraction ?? BUILD_DEFAULTS.fewshotFraction);

  interface Entry { draft: QuestionDraft; t: Trajectory; id: string }
  const shotRank = (id: string) => sha256(`${seed}\u0000shot\u0000${id}`);
  const seenIds = new Set<string>();
  const seenQuestions = new Set<string>();
  const questions: Question[] = [];
  let count = 0;
  // What distractors of a domain may be drawn from: hashed into every question's provenance.
  const corpusHash = new Map<string, string>();
  const corpusKey = (t: Trajectory) => `${questionLanguage(t)}\u0000${t.domain}`;
  for (const t of usable) {
    if (!corpusHash.has(corpusKey(t))) corpusHash.set(corpusKey(t), sha256(`${seed}\u0000${corpusByLanguage.get(questionLanguage(t))!.domainMembers(t.domain).join('\n')}`).slice(0, 16));
  }
  // Kinds are pipelined: a kind's drafts are generated and handed to the adversarial filter (on a
  // worker thread when there is one) while kinds before it wait for theirs or are rendered, so the
  // filter of one kind runs beside the generating and rendering of others. The drafts (histories,
  // candidates) of at most LOOKAHEAD waiting kinds and the one being generated, and one kind's
  // questions, are held at once. What a
  // kind's generation counts and reports is replayed when that kind is finished, so skips and
  // findings come out in kind order as if each kind ran alone.
  interface Generated {
    kind: QuestionKind;
    list: Entry[];
    reasons: Record<string, number>;
    skips: string[];
    findings: Finding[];
    filtered: Promise<Map<QuestionDraft, FilterDropReason>> | null;
  }
  const settings = {
    choices,
    maxPerTrajectory: options.maxPerTrajectory ?? BUILD_DEFAULTS.maxPerTrajectory,
    observationChars: options.observationChars ?? BUILD_DEFAULTS.observationChars,
    planHistory: options.planHistory ?? ('plans' as const),
  };
  // A language model rewrites drafts as they are made: then every draft is made here.
  const split = options.llm ? null : new DraftSplit(usable);
  // Generated first (see the loop at the end), so the last of them is the last generated there.
  const lastSplitKind = kinds.filter((k) => OFF_THREAD_KINDS.has(k)).at(-1);
  const generateKind = async (kind: QuestionKind): Promise<Generated> => {
    const module = QUESTION_TYPES[kind];
    let list: Entry[] = [];
    const reasons: Record<string, number> = {};
    const skips: string[] = [];
    const findings: Finding[] = [];
    const skip = (key: string) => skips.push(key);
    const draftOne = (t: Trajectory) => draftTrajectory(kind, t, root, corpusByLanguage, settings);
    // The costliest kinds are drafted on two threads (generate-thread.ts): every other member
    // trajectory on the worker, the rest here meanwhile; the results are taken in trajectory order.
    const members = usable.flatMap((t, i) => (module.domains.includes(t.domain) ? [i] : []));
    const results = new Map<number, ReturnType<typeof draftOne>>();
    const away = members.filter((_, j) => j % 2 === 1);
    const remote = split && OFF_THREAD_KINDS.has(kind) && away.length > 0 ? split.draft(kind, away, { seed, ...settings }) : null;
    for (const [j, i] of members.entries()) if (!remote || j % 2 === 0) results.set(i, draftOne(usable[i]!));
    if (remote) {
      const drafted = await remote;
      // The worker's copy of the corpus goes as soon as its last kind is drafted, before this kind is filtered.
      // Waited for: this thread holds the kind's drafts from here and reads their features next, and
      // the worker's heap would otherwise stay until this thread next lets a message in.
      if (kind === lastSplitKind) await split!.release();
      away.forEach((i, j) => results.set(i, drafted ? drafted[j]! : draftOne(usable[i]!)));
    }
    let visited = 0;
    for (const [i, t] of usable.entries()) {
      onProgress?.(++visited, usable.length, `${kind}: trajectories`);
      const result = results.get(i);
      if (!result) continue;
      results.delete(i);
      for (const r of result.skipped) {
        skip(`${kind}:${r}`);
        reasons[r] = (reasons[r] ?? 0) + 1;
      }
      for (const draft of result.drafts) {
        draft.answerStem = answerStemFor(draft.answerStem, questionLanguage(t));
        if (draft.questionHeader) draft.questionHeader = questionHeaderFor(draft.questionHeader, questionLanguage(t));
        // The id names the question by what it asks (trajectory, anchor, kind, seed) and nothing
        // else: other trajectories may change its distractors (recorded in build.corpus), never
        // its id, so review decisions and harness-log joins survive a growing corpus.
        const id = `${kind}.${contentId({ kind, traj: t.traj_id, step: draft.step, seed })}`;
        if (seenIds.has(id)) {
          findings.push(make('build-duplicate-question', {}, { id, traj_id: t.traj_id }));
          continue;
        }
        // Overlapping rows (APTBench prefix rows, reruns sharing their first steps) give the same
        // question twice: same goal, same steps shown, same gold. The first by traj_id is kept.
        const dupKey = nearDuplicateKey(kind, draft);
        if (seenQuestions.has(dupKey)) {
          skip(`${kind}:near-duplicate`);
          reasons['near-duplicate'] = (reasons['near-duplicate'] ?? 0) + 1;
          continue;
        }
        seenQuestions.add(dupKey);
        seenIds.add(id);
        list.push({ draft, t, id });
      }
    }
    if (module.pairsFinishes) {
      const paired = pairFinishesOf(list, (t) => `${taskFor(kind, t.domain)}\u0000${questionLanguage(t)}`, choices, seed);
      for (let n = 0; n < paired.unpaired; n++) skip(`${kind}:finish-unbalanced`);
      if (paired.unpaired > 0) reasons['finish-unbalanced'] = (reasons['finish-unbalanced'] ?? 0) + paired.unpaired;
      list = paired.kept;
    }
    // The model rewrites the choices as they will be shown (a paired premature finish included).
    if (options.llm) {
      for (const { draft, t } of list) {
        const next = draft.step === null ? undefined : t.steps[draft.step + 1];
        await modelDistractor(draft, options.llm, t, next ? [planOf(next), next.action.text] : [], findings);
        await rewritePlans(draft, options.llm, t, findings);
      }
    }
    // Adversarial filtering: per scored task, the distractors a cross-fitted options-only
    // discriminator finds most gold-like are shown; drafts it still solves are dropped.
    let filtered: Generated['filtered'] = null;
    if (module.format === 'mcq' && options.adversarialFilter !== false) {
      const renderDraft = (draft: QuestionDraft, t: Trajectory) => {
        const render = templatesByLanguage.get(questionLanguage(t))?.render.get(QUESTION_TYPES[kind].template);
        return render ? renderBare(render, draft) : null;
      };
      const started = filterByTask(list, { seed, taskOf: (t) => taskFor(kind, t.domain), languageOf: questionLanguage, groupOf: (t) => groups.get(t)!, scoredOf: (t) => !fewshotIds.has(t.traj_id), renderDraft, post: postCores, features: featuresOffThread });
      filtered = started.then((s) => s.dropped);
      // Awaited when the kind is finished; a failure is reported there, not as an unhandled rejection.
      filtered.catch(() => undefined);
      // The drafts' features are read partly on the filter's worker: this thread waits for them,
      // so the core is handed to that worker before this thread goes on to the next kind.
      await started.catch(() => undefined);
      // Reading the features rendered a bare prompt per draft, now garbage: collected before this
      // thread goes on, while the filter starts on its worker.
      collectGarbage();
    }
    return { kind, list, reasons, skips, findings, filtered };
  };

  const finishKind = async (generated: Generated & { done?: boolean }) => {
    const { kind, reasons } = generated;
    let list = generated.list;
    for (const key of generated.skips) skip(key);
    findings.push(...generated.findings);
    if (generated.filtered) {
      // A thread that waits allocates nothing and so collects nothing: what the kinds before left
      // is collected now, not after the filter, where the build's memory peaks.
      if (generated.done === false) collectGarbage();
      const dropped = await generated.filtered;
      for (let i = list.length - 1; i >= 0; i--) {
        const reason = dropped.get(list[i]!.draft);
        if (!reason) continue;
        skip(`${kind}:${reason}`);
        reasons[reason] = (reasons[reason] ?? 0) + 1;
      }
      list = list.filter((e) => !dropped.has(e.draft));
    }
    // What generating the kinds since the last collection left (a completion kind's drafting,
    // another kind's handing over) goes before this kind's questions are rendered beside it.
    collectGarbageOver(COLLECT_OVER_BYTES);
    for (const e of list) delete e.draft.mcq?.alternatives;
    // Letters are balanced per scored task: a domain with a task of its own (CTF) is its own
    // group, named after that task; the kind's default task keeps the plain keys, and with them
    // its letters.
    const groupOf = (t: Trajectory) => (taskFor(kind, t.domain) === QUESTION_KIND_INFO[kind].task ? '' : `/${t.domain}`);
    // The few-shot split is balanced in the order shots are drawn (`pool` below), so the first shots
    // every prompt shows answer with different letters, not by chance all the same one.
    balanceGoldPositions(
      list.map((e) =>
        fewshotIds.has(e.t.traj_id)
          ? // Shots are drawn per language and domain: each such pool is balanced in its own draw order.
            { ...e, split: `fewshot${groupOf(e.t)}/${e.t.domain}/${questionLanguage(e.t)}`, order: shotRank(e.id) }
          : { ...e, split: `test${groupOf(e.t)}` },
      ),
      root.fork(`balance/${kind}`),
    );
    if (list.length === 0 && options.kinds) {
      findings.push(make('build-kind-empty', {}, { kind, reasons: Object.entries(reasons).map(([r, n]) => `${r}=${n}`).join(', ') }));
    }

    const failedLanguages = new Set<string>();
    let kindQuestions: Question[] = [];
    // A fixed, seeded ranking of the few-shot pool: every question of a kind sees the same
    // examples, except that a question never sees examples from its own trajectory.
    const pool = list
      .filter((e) => fewshotIds.has(e.t.traj_id))
      .map((e) => ({ e, rank: shotRank(e.id) }))
      .sort((a, b) => (a.rank < b.rank ? -1 : 1))
      .map((x) => x.e);
    const poolOf = shotPools(pool);
    for (const { draft, t, id } of list) {
      const language = questionLanguage(t);
      const templates = templatesByLanguage.get(language)!;
      const render = templates.render.get(QUESTION_TYPES[kind].template);
      if (!render || failedLanguages.has(language)) continue;
      const templateLabel = templates.label.get(QUESTION_TYPES[kind].template) ?? QUESTION_TYPES[kind].template;
      // Examples come from the same language and the same domain: a CTF question never shows a
      // SWE fix as its example, nor a SWE question a CTF run.
      const shots = shotsWanted > 0 ? chooseShots(poolOf(language, t.domain), t, draft, shotsWanted) : [];
      let rendered;
      try {
        rendered = renderWithinBudget(render, draft, shots.map((s) => s.draft), counter, budget);
      } catch (err) {
        findings.push(make('build-template-error', {}, { template: templateLabel, reason: (err as Error).message }));
        failedLanguages.add(language);
        continue;
      }
      if (language !== 'en' && rendered.prompt.includes(' characters omitted ...]')) {
        // Cut observations are marked in the prompt's language; the scored segment moves with the shots' markers.
        const head = omittedMarkersFor(rendered.prompt.slice(0, rendered.questionStart ?? 0), language);
        const prompt = head + omittedMarkersFor(rendered.prompt.slice(rendered.questionStart ?? 0), language);
        rendered = { ...rendered, prompt, questionStart: rendered.questionStart === null ? null : head.length, tokens: counter.count(prompt) };
      }
      if (rendered.tokens < minTokens) {
        skip(`${kind}:below-min-tokens`);
        continue;
      }
      if (!rendered.prompt.endsWith(draft.answerStem)) {
        findings.push(make('build-template-error', {}, { template: templateLabel, reason: `the prompt must end with the answer stem ${JSON.stringify(draft.answerStem)}` }));
        failedLanguages.add(language);
        continue;
      }
      const base = {
        language: questionLanguage(t),
        ...(rendered.questionStart !== null ? { question_start: rendered.questionStart } : {}),
        schema_version: QUESTION_SCHEMA_VERSION as typeof QUESTION_SCHEMA_VERSION,
        id,
        kind,
        task: taskFor(kind, t.domain),
        prompt: flattened(rendered.prompt),
        prompt_tokens: rendered.tokens,
        length_bucket: lengthBucket(rendered.tokens),
        truncated: rendered.truncated,
        split: fewshotIds.has(t.traj_id) ? ('fewshot' as const) : ('test' as const),
        provenance: {
          traj_id: t.traj_id,
          source_path: t.source.path,
          source_line: t.source.line ?? null,
          step: draft.step,
          framework: t.source.framework,
          instance_id: t.task.instance_id,
          ...sourceGroupField(groups.get(t)!, t),
        },
        build: {
          seed,
          ...(draft.mcq ? { operators: [...new Set(draft.mcq.sources.filter((s) => s !== 'gold'))].sort(), choice_sources: draft.mcq.sources } : {}),
          ...(draft.mcq ? { choice_reasons: draft.mcq.reasons ?? draft.mcq.sources.map((s) => (s === 'gold' ? '' : `a ${s.replace(/_/g, ' ')} distractor`)) } : {}),
          offered_tools: draft.offeredTools ?? offeredTools(t, draft.step).tools.map((x) => x.name),
          ...(draft.mcq ? { corpus: corpusHash.get(corpusKey(t))! } : {}),
          template: templateLabel,
          tokenizer: counter.name,
          budget_tokens: budget,
          fewshot_ids: shots.slice(0, rendered.shotsUsed).map((s) => s.id),
          ...(options.llm ? { llm_model: options.llm.model } : {}),
        },
        answer_stem: draft.answerStem,
      };
      const q: Question = multiSelectQuestion(base, draft) ?? (draft.mcq
        ? { ...base, format: 'mcq', choices: draft.mcq.choices, gold: draft.mcq.gold }
        : { ...base, format: 'completion', targets: draft.completion!.targets, metric: draft.completion!.metric, stop: draft.completion!.stop });
      addQuestionExtras(q, draft, t.task.goal, rendered.shotsUsed);
      const problems = validateQuestion(q, { record: count + kindQuestions.length });
      if (problems.some((p) => p.severity === 'error')) {
        // A question the schema rejects is a builder bug; report it rather than emit it.
        findings.push(...problems);
        skip(`${kind}:invalid`);
        continue;
      }
      kindQuestions.push(q);
    }
    count += kindQuestions.length;
    if (options.onQuestions) {
      await options.onQuestions(kindQuestions);
      // A large kind's questions (next_action_tc's prompts are 262 M characters at 10,000
      // trajectories) and what the handler made of them are garbage from here: collected now,
      // before the next kind is generated while a filter's workers grow beside this thread, not
      // whenever V8 next gets to it.
      kindQuestions = [];
      collectGarbageOver(COLLECT_OVER_BYTES);
    } else for (const q of kindQuestions) questions.push(q);
  };

  // Kinds are finished (rendered, handed over) in the order asked, each as soon as it is generated
  // and its filter is done; generating runs ahead of finishing by at most LOOKAHEAD kind, so the
  // filter has work while the kinds before it are rendered. The kinds drafted on two threads are
  // generated first: the costliest filter (next_action_mcq's) then starts before the cheaper kinds
  // listed ahead of it, which are generated and finished on this thread while it runs on the
  // workers, instead of this thread waiting for it with nothing to do. Every draw is forked by
  // kind and trajectory and every count is replayed in kind order, so the order is not in the output.
  const positions = kinds.map((_, i) => i);
  // Positions, not kinds: a kind asked twice is generated and finished twice, as asked.
  const generationOrder = split ? [...positions.filter((i) => OFF_THREAD_KINDS.has(kinds[i]!)), ...positions.filter((i) => !OFF_THREAD_KINDS.has(kinds[i]!))] : positions;
  const held = new Map<number, Generated & { done: boolean }>();
  let finished = 0;
  const finishReady = async (all: boolean) => {
    // Lets the worker's answers in before the kinds at the head are looked at.
    await new Promise<void>((resolve) => setImmediate(resolve));
    for (let next = held.get(finished); next && (all || next.done || held.size > LOOKAHEAD); next = held.get(finished)) {
      held.delete(finished++);
      await finishKind(next);
    }
  };
  for (const position of generationOrder) {
    const kind = kinds[position]!;
    const generated = Object.assign(await generateKind(kind), { done: false });
    if (kind === lastSplitKind) await split?.release(); // when nothing was drafted there (no-op otherwise)
    if (generated.filtered) generated.filtered.then(() => (generated.done = true), () => (generated.done = true));
    else generated.done = true;
    held.set(position, generated);
    await finishReady(false);
  }
  await finishReady(true);
  return { questions, count, findings, skipped };
}

/** Recorded when other runs (another agent's, a translation) share the research question under other ids. */
function sourceGroupField(group: string, t: Trajectory): { source_group?: string } {
  return group !== t.task.instance_id ? { source_group: group } : {};
}
