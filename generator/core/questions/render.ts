import { fileURLToPath } from 'node:url';
import type { Finding } from '../kernel/findings.js';
import { findingFactory } from '../kernel/findings.js';
import { sha256 } from '../kernel/stable-json.js';
import type { Vfs } from '../kernel/vfs.js';
import { questionFindings } from './findings.js';
import type { TokenCounter } from './tokenizer.js';
import type { QuestionDraft } from './types/module.js';
import { drStepJson } from './types/dr-plan-mcq.js';
import { letters } from './types/module.js';
import type { StepView } from './views.js';
import { middleCut } from './views.js';

const make = findingFactory(questionFindings);

type Render = (context: Record<string, unknown>) => string;

/** Compiled prompt templates, one per question kind, plus where each came from. */
export interface TemplateSet {
  render: Map<string, Render>;
  /** `name@sha8` of each template's source, recorded in every question for provenance. */
  label: Map<string, string>;
}

/**
 * Where the shipped templates live: `templates/prompts` at the package root, reached from
 * both the TypeScript sources and the compiled `build/` tree.
 */
export function defaultTemplateDirs(): string[] {
  return [
    fileURLToPath(new URL('../../../templates/prompts/', import.meta.url)),
    fileURLToPath(new URL('../../../../templates/prompts/', import.meta.url)),
  ];
}

async function findDefaultDir(vfs: Vfs): Promise<string | undefined> {
  for (const dir of defaultTemplateDirs()) if ((await vfs.stat(dir).catch(() => undefined))?.isDirectory) return dir;
  return undefined;
}

/** A template file ends with a newline for editors' sake; the prompt must end exactly at the stem. */
function source(text: string): string {
  return text.endsWith('\n') ? text.slice(0, -1) : text;
}

/**
 * Loads `<kind>.hbs` and `partials/*.hbs` from the shipped folder, then from `userDir`
 * (files there replace shipped ones of the same name). Rendering is plain text: no HTML escaping.
 */
export async function loadTemplates(vfs: Vfs, names: readonly string[], userDir?: string, language = 'en'): Promise<{ templates: TemplateSet; findings: Finding[] }> {
  const Handlebars = (await import('handlebars')).default;
  const hb = Handlebars.create();
  const findings: Finding[] = [];
  const join = (dir: string, name: string) => `${dir.replace(/\/$/, '')}/${name}`;
  // English templates sit at the top of the folder; every other language has its own subfolder
  // (with its own partials), in the shipped folder and in a user's folder alike.
  const inLanguage = (dir: string | undefined) => (dir && language !== 'en' ? join(dir, language) : dir);
  const dirs = [inLanguage(await findDefaultDir(vfs)), inLanguage(userDir)].filter((d): d is string => Boolean(d));
  const labelPrefix = language === 'en' ? '' : `${language}/`;

  const partials = new Map<string, string>();
  const sources = new Map<string, { text: string; origin: string }>();
  for (const dir of dirs) {
    const partialDir = join(dir, 'partials');
    if ((await vfs.stat(partialDir).catch(() => undefined))?.isDirectory) {
      for (const file of await vfs.list(partialDir)) {
        if (file.endsWith('.hbs')) partials.set(file.slice(0, -4), source(await vfs.readText(join(partialDir, file))));
      }
    }
    for (const name of names) {
      const file = join(dir, `${name}.hbs`);
      if ((await vfs.stat(file).catch(() => undefined))?.isFile) sources.set(name, { text: source(await vfs.readText(file)), origin: dir === inLanguage(userDir) ? 'user' : 'shipped' });
    }
  }
  // Compiled once here: a partial registered as a string is recompiled on every render.
  for (const [name, text] of [...partials].sort(([a], [b]) => a.localeCompare(b))) hb.registerPartial(name, hb.compile(text, { noEscape: true }));
  hb.registerHelper('json', (value: unknown) => JSON.stringify(value));
  hb.registerHelper('add', (a: number, b: number) => Number(a) + Number(b));
  // Deep-research steps are shown as APTBench shows them: {"planning", "execution": {name, args}}.
  hb.registerHelper('step_json', (v: StepView) => drStepJson({ plan: v.plan, action: { tool: v.tool, args: v.args } }));

  const templates: TemplateSet = { render: new Map(), label: new Map() };
  for (const name of names) {
    const src = sources.get(name);
    if (!src) {
      findings.push(make('build-template-missing', { file: userDir ?? dirs[0] ?? 'templates/prompts' }, { template: `${name}.hbs`, dir: dirs.join(', ') || '(no template folder found)' }));
      continue;
    }
    try {
      const compiled = hb.compile(src.text, { noEscape: true, strict: false });
      templates.render.set(name, (ctx) => compiled(ctx));
      const partialHash = sha256([...partials].sort().map(([k, v]) => `${k}\n${v}`).join('\n')).slice(0, 8);
      templates.label.set(name, `${src.origin === 'user' ? 'user:' : ''}${labelPrefix}${name}@${sha256(src.text).slice(0, 8)}${partials.size ? `+${partialHash}` : ''}`);
    } catch (err) {
      findings.push(make('build-template-error', { file: userDir ?? dirs[0] }, { template: `${name}.hbs`, reason: (err as Error).message }));
    }
  }
  return { templates, findings };
}

/** A solved example shown before the question: compact so that a few fit any budget. */
export interface Shot {
  id: string;
  draft: QuestionDraft;
}

const SHOT_HISTORY_STEPS = 3;
const SHOT_OBSERVATION_CHARS = 400;
const SHOT_GOAL_CHARS = 1500;

export function exampleContext(draft: QuestionDraft, history: StepView[], omitted: number): Record<string, unknown> {
  return {
    ...draft.fields,
    history,
    omitted,
    choices: draft.mcq ? draft.mcq.choices.map((text, i) => ({ letter: String.fromCharCode(65 + i), text })) : [],
    answer_stem: draft.answerStem,
  };
}

const shotContexts = new WeakMap<QuestionDraft, Record<string, unknown>>();

/** A shot's context is the same for every question that shows it: computed once. */
export function shotContext(shot: QuestionDraft): Record<string, unknown> {
  const cached = shotContexts.get(shot);
  if (cached) return cached;
  const ctx = computeShotContext(shot);
  shotContexts.set(shot, ctx);
  return ctx;
}

function computeShotContext(shot: QuestionDraft): Record<string, unknown> {
  const kept = shot.history.slice(-SHOT_HISTORY_STEPS).map((v) => {
    const obs = v.observation == null ? null : middleCut(v.observation, SHOT_OBSERVATION_CHARS);
    return { ...v, observation: obs?.text ?? null, cut: v.cut || Boolean(obs?.cut) };
  });
  const ctx = exampleContext(shot, kept, shot.history.length - kept.length);
  if (typeof ctx.goal === 'string') ctx.goal = middleCut(ctx.goal, SHOT_GOAL_CHARS).text;
  // The tool list is given once per prompt, by the question itself: repeated in every shot it
  // took half of a next-action prompt.
  delete ctx.tools;
  const answer = shot.mcq ? letters(shot.mcq.choices.length)[shot.mcq.gold]! : (shot.completion?.targets[0] ?? '');
  return { ...ctx, answer: `${answer}${shot.answerSuffix}` };
}

/**
 * Templates write `{{question_start}}` where the scored question begins (after the
 * instructions, any shared tool list and the few-shot examples); the renderer replaces this
 * mark by nothing and records its offset as the question's `question_start`.
 */
const QUESTION_MARK = '\u0001aptpace-question-start\u0001';

export interface Rendered {
  prompt: string;
  /** Offset of the scored question segment (after instructions and shots); null when the template has no `{{question_start}}` mark. */
  questionStart: number | null;
  tokens: number;
  /** Tokens of the prompt with the whole available history and every shot, before any budgeting. */
  fullTokens: number;
  truncated: boolean;
  omittedSteps: number;
  /** Earlier observations cut down to head and tail to make the prompt fit. */
  trimmedObservations: number;
  shotsUsed: number;
}

/** What an older observation is cut to (head and tail kept) when the whole history does not fit. */
export const TRIMMED_OBSERVATION_CHARS = 400;

/** The history with its `count` oldest observations cut to their head and tail. */
function trimOldest(history: StepView[], count: number): StepView[] {
  return history.map((v, i) => {
    if (i >= count || v.observation == null) return v;
    const obs = middleCut(v.observation, TRIMMED_OBSERVATION_CHARS);
    return obs.cut ? { ...v, observation: obs.text, cut: true } : v;
  });
}

/** Smallest `k` in [lo, hi] with `fits(k)`, for a predicate that stays true once true; `hi` when none before it. */
function firstFitting(lo: number, hi: number, fits: (k: number) => boolean): number {
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (fits(mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/**
 * Renders a question within a token budget, filling it with as much of the history as fits:
 * the whole history when it fits; otherwise the oldest observations are cut to their head and
 * tail first (as few as needed, oldest first); then the oldest steps are dropped (the goal, the
 * tool set and the most recent steps stay, and the gap is marked in the prompt); only if the
 * question alone still does not fit are few-shot examples dropped. Shots never repeat the tool
 * list: the question's own list is the one the prompt gives.
 */
/** The question alone, whole history, no shots and no budget: what the adversarial filter reads. */
export function renderBare(render: Render, draft: QuestionDraft): { prompt: string; questionStart: number | null } {
  const marked = render({ shots: [], question: exampleContext(draft, draft.history, 0), question_start: QUESTION_MARK });
  const at = marked.indexOf(QUESTION_MARK);
  return { prompt: at < 0 ? marked : marked.slice(0, at) + marked.slice(at + QUESTION_MARK.length), questionStart: at < 0 ? null : at };
}

export function renderWithinBudget(render: Render, draft: QuestionDraft, shots: QuestionDraft[], counter: TokenCounter, budget: number): Rendered {
  const shotContexts = shots.map(shotContext);
  const n = draft.history.length;
  const attempt = (history: StepView[], shotCount: number) => {
    const marked = render({ shots: shotContexts.slice(0, shotCount), question: exampleContext(draft, history, n - history.length), question_start: QUESTION_MARK });
    const at = marked.indexOf(QUESTION_MARK);
    const prompt = at < 0 ? marked : marked.slice(0, at) + marked.slice(at + QUESTION_MARK.length);
    return { prompt, questionStart: at < 0 ? null : at, tokens: counter.count(prompt) };
  };
  const cutObservations = draft.history.some((v) => v.cut);
  const whole = attempt(draft.history, shotContexts.length);
  const fullTokens = whole.tokens;
  const trimmable = draft.history.filter((v) => v.observation != null && v.observation.length > TRIMMED_OBSERVATION_CHARS).length;
  for (let shotCount = shotContexts.length; shotCount >= 0; shotCount--) {
    const full = shotCount === shotContexts.length ? whole : attempt(draft.history, shotCount);
    if (full.tokens <= budget) return { ...full, fullTokens, truncated: cutObservations, omittedSteps: 0, trimmedObservations: 0, shotsUsed: shotCount };
    const allTrimmed = trimOldest(draft.history, n);
    const trimmedAll = trimmable > 0 ? attempt(allTrimmed, shotCount) : full;
    if (trimmedAll.tokens <= budget) {
      // Fewest oldest observations to cut: tokens shrink with every observation cut.
      const cache = new Map<number, ReturnType<typeof attempt>>([[n, trimmedAll]]);
      const tryK = (k: number) => {
        if (!cache.has(k)) cache.set(k, attempt(trimOldest(draft.history, k), shotCount));
        return cache.get(k)!;
      };
      const k = firstFitting(1, n, (x) => tryK(x).tokens <= budget);
      const best = tryK(k);
      return { ...best, fullTokens, truncated: true, omittedSteps: 0, trimmedObservations: trimOldest(draft.history, k).filter((v, i) => v !== draft.history[i]).length, shotsUsed: shotCount };
    }
    const none = n > 0 ? attempt([], shotCount) : full;
    if (none.tokens > budget) continue;
    // Largest number of recent (trimmed) steps that fits: tokens grow with every step kept.
    let lo = 0;
    let hi = n - 1;
    let best = none;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi + 1) / 2);
      const r = attempt(allTrimmed.slice(n - mid), shotCount);
      if (r.tokens <= budget) {
        lo = mid;
        best = r;
      } else hi = mid - 1;
    }
    if (lo > 0 && best === none) best = attempt(allTrimmed.slice(n - lo), shotCount);
    const kept = allTrimmed.slice(n - lo);
    return { ...best, fullTokens, truncated: true, omittedSteps: n - lo, trimmedObservations: kept.filter((v) => !draft.history.includes(v)).length, shotsUsed: shotCount };
  }
  // Even the goal and the answer options alone exceed the budget: keep them whole, say so.
  const bare = attempt([], 0);
  return { ...bare, fullTokens, truncated: n > 0 || cutObservations, omittedSteps: n, trimmedObservations: 0, shotsUsed: 0 };
}
