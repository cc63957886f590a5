/**
 * The self-contained review page: one HTML file, no external assets, no network. Every
 * piece of question text comes from untrusted trajectories, so it is HTML-escaped where it
 * is shown, JSON data is embedded with `<`, `>`, `&` escaped, and a Content-Security-Policy
 * allows only the page's own style and script, pinned by hash.
 */
import { createHash } from 'node:crypto';
import type { Finding } from '../../kernel/findings.js';
import { renderFinding } from '../../kernel/render.js';
import { lookupFinding } from '../../catalog.js';
import { contentId } from '../../kernel/stable-json.js';
import type { Question } from '../types.js';
import { REVIEW_CLIENT_SCRIPT } from './client-script.js';
import { isOutdated, reviewContentHash, type ReviewStatus } from './status.js';

export interface ReviewPageOptions {
  title?: string;
  /**
   * Findings (e.g. from the audit) shown on the card of the question named by `args.id`, or on
   * every card listed in `args.ids` (task-level findings that list questions).
   */
  findings?: readonly Finding[];
  /** Status file the page's decisions should be applied to (shown in the instructions). */
  statusFile?: string;
  /**
   * Show at most this many prompt characters (the head and the end, which holds the step being
   * asked about). 0 = the whole prompt.
   */
  maxPromptChars?: number;
}

/** Marks a file as a page this tool wrote, so `review --out` may regenerate it without --force. */
export const REVIEW_PAGE_MARKER = '<meta name="generator" content="aptpace review">';

const STYLE = `
:root { color-scheme: light dark; --gold: #1a7f37; --bad: #cf222e; --muted: #6e7781; --line: #d0d7de; }
body { font: 14px/1.45 system-ui, sans-serif; margin: 0; }
header { position: sticky; top: 0; background: Canvas; border-bottom: 1px solid var(--line); padding: .6rem 1rem; z-index: 1; }
header h1 { font-size: 1.1rem; margin: 0 0 .3rem; }
header .bar { display: flex; flex-wrap: wrap; gap: .6rem; align-items: center; }
main { padding: 1rem; max-width: 75rem; margin: auto; overflow-wrap: anywhere; }
article.question { border: 1px solid var(--line); border-left: 6px solid var(--muted); border-radius: 6px; padding: .6rem 1rem; margin: 0 0 1rem; }
article.question[data-status=approved] { border-left-color: var(--gold); }
article.question[data-status=rejected] { border-left-color: var(--bad); }
article.question h2 { font-size: 1rem; margin: 0 0 .3rem; }
code.id { font-size: .85rem; color: var(--muted); }
dl.provenance { display: grid; grid-template-columns: max-content 1fr; gap: 0 .8rem; margin: .3rem 0; font-size: .85rem; }
dl.provenance dt { color: var(--muted); }
dl.provenance dd { margin: 0; overflow-wrap: anywhere; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; margin: .2rem 0; font: 12.5px/1.4 ui-monospace, monospace; }
details.prompt pre { max-height: 32rem; overflow: auto; background: color-mix(in srgb, Canvas 92%, CanvasText); padding: .5rem; }
ol.choices { list-style: none; padding: 0; margin: .4rem 0; }
ol.choices li { display: grid; grid-template-columns: 2rem minmax(0, 1fr) auto; gap: .4rem; border: 1px solid var(--line); border-radius: 4px; padding: .3rem .5rem; margin: .25rem 0; }
ol.choices li.gold { border-color: var(--gold); background: color-mix(in srgb, var(--gold) 10%, Canvas); }
.letter { font-weight: bold; }
.badge { font-size: .75rem; font-weight: bold; color: var(--gold); }
ul.flags { margin: .3rem 0; padding-left: 1.2rem; color: var(--bad); font-size: .85rem; }
ul.flags li.warning, ul.flags li.info { color: var(--muted); }
.controls { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; margin-top: .4rem; }
.controls textarea { flex: 1 1 20rem; min-width: 0; min-height: 2.2rem; font: inherit; }
.status-value { font-weight: bold; }
.omitted { color: var(--muted); font-style: italic; }
.origin { font-size: .75rem; color: var(--muted); display: block; }
.reason { font-size: .75rem; color: var(--muted); display: block; font-style: italic; }
p.stem { font-weight: 600; }
article.question.current { outline: 3px solid Highlight; }
kbd { font: 11px ui-monospace, monospace; border: 1px solid var(--line); border-radius: 3px; padding: 0 .25rem; }
`;

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for HTML element content and double- or single-quoted attributes. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/** JSON that cannot close a `<script>` element or start a comment/CDATA inside one. */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

export function cspHash(source: string): string {
  return `'sha256-${createHash('sha256').update(source, 'utf8').digest('base64')}'`;
}

function letterOf(i: number): string {
  return String.fromCharCode(65 + i);
}

function shownPrompt(prompt: string, max: number): string {
  if (!max || prompt.length <= max) return `<pre>${escapeHtml(prompt)}</pre>`;
  const head = Math.floor(max * 0.2);
  const tail = max - head;
  const omitted = prompt.length - head - tail;
  return `<pre>${escapeHtml(prompt.slice(0, head))}</pre><p class="omitted">… ${omitted} characters omitted (page built with a prompt limit) …</p><pre>${escapeHtml(prompt.slice(prompt.length - tail))}</pre>`;
}

/**
 * The answer stem as a reader sees it: the prompt ends in an opener the model completes
 * ("… is (" for a letter, "[" for a short answer, a code fence for a command), which reads as a
 * broken sentence on a card. Show the sentence with the slot spelled out instead.
 */
export function stemAsSentence(q: Question): string {
  const stem = q.answer_stem.replace(/\s+$/, '');
  if (q.format === 'mcq') {
    const letters = q.choices.map((_, i) => letterOf(i)).join('/');
    return stem.endsWith('(') ? `${stem.slice(0, -1).trimEnd()} (${letters})` : `${stem} (${letters})`;
  }
  const fence = /```[a-z]*$/.exec(stem);
  if (fence) return `${stem.slice(0, fence.index).trimEnd()} …the text the model writes, up to the closing fence`;
  if (stem.endsWith('[')) return `${stem.slice(0, -1).trimEnd()} […the text the model writes…]`;
  return `${stem} …the text the model writes`;
}

function card(q: Question, flags: readonly Finding[], maxPromptChars: number, earlier: ReviewStatus | undefined): string {
  const p = q.provenance;
  const source = `${p.source_path}${p.source_line ? `:${p.source_line}` : ''}`;
  const rows: Array<[string, string]> = [
    ['kind', q.kind],
    ['trajectory', p.traj_id],
    ['source', source],
    ['step', p.step === null ? '(whole trajectory)' : String(p.step)],
    ['framework', p.framework],
    ['template', q.build.template],
    ['seed', q.build.seed],
  ];
  if (q.build.operators?.length) rows.push(['distractor operators', q.build.operators.join(', ')]);
  const provenance = rows.map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`).join('');
  const items = flags.map((f) => {
    // A task-level finding's sentence is about the whole task; its title is what fits a card.
    const text = typeof f.args.id === 'string' ? renderFinding({ ...f, path: {} }) : `${f.severity}[${f.code}]: ${lookupFinding(f.code)?.title ?? f.code}`;
    return `<li class="${escapeHtml(f.severity)}">${escapeHtml(text)}</li>`;
  });
  if (earlier) {
    items.unshift(
      `<li class="warning">changed since it was reviewed: an earlier version was ${escapeHtml(earlier.status)}${earlier.note ? ` (${escapeHtml(earlier.note)})` : ''}; review it again</li>`,
    );
  }
  const flagList = items.length ? `<ul class="flags">${items.join('')}</ul>` : '';
  const promptMeta = `${q.prompt_tokens} tokens, ${q.length_bucket}${q.truncated ? ', truncated' : ''}`;
  let answers: string;
  if (q.format === 'mcq') {
    const sources = q.build.choice_sources;
    const reasons = q.build.choice_reasons;
    answers = `<ol class="choices">${q.choices
      .map((choice, i) => {
        const gold = i === q.gold;
        // The gold's source is always "gold": saying it twice ("✔ gold gold") tells the reviewer
        // nothing. A distractor shows the operator that made it and, when recorded, why it is wrong.
        const source = sources && sources.length === q.choices.length ? sources[i]! : undefined;
        const reason = reasons && reasons.length === q.choices.length ? reasons[i]! : '';
        const label = gold
          ? '<span class="badge">✔ correct</span>'
          : `${source ? `<span class="origin">distractor: ${escapeHtml(source)}</span>` : '<span class="origin">distractor</span>'}${reason ? `<span class="reason">${escapeHtml(reason)}</span>` : ''}`;
        return `<li class="${gold ? 'gold' : 'distractor'}"><span class="letter">${letterOf(i)}</span><pre>${escapeHtml(choice)}</pre><span class="label">${label}</span></li>`;
      })
      .join('')}</ol>`;
  } else {
    answers = `<ol class="choices">${q.targets
      .map((t, i) => `<li class="${i === 0 ? 'gold' : 'distractor'}"><span class="letter">${i === 0 ? '✔' : '≈'}</span><pre>${escapeHtml(t)}</pre><span class="badge">${i === 0 ? 'target' : 'also accepted'}</span></li>`)
      .join('')}</ol><p>metric: ${escapeHtml(q.metric)}; stop: <code>${escapeHtml(JSON.stringify(q.stop))}</code></p>`;
  }
  const search = `${q.id} ${q.task} ${q.kind} ${p.traj_id}`.toLowerCase();
  const operators = [...new Set(q.build.operators ?? [])].sort().join(' ');
  const flagCodes = [...new Set(flags.map((f) => f.code))].sort().join(' ');
  return `<article class="question" tabindex="-1" id="q-${escapeHtml(q.id)}" data-id="${escapeHtml(q.id)}" data-task="${escapeHtml(q.task)}" data-kind="${escapeHtml(q.kind)}" data-operators="${escapeHtml(operators)}" data-flags="${escapeHtml(flagCodes)}" data-search="${escapeHtml(search)}" data-status="unreviewed">
<h2>${escapeHtml(q.task)} <code class="id">${escapeHtml(q.id)}</code></h2>
<dl class="provenance">${provenance}</dl>
${flagList}<details class="prompt"><summary>Prompt (${escapeHtml(promptMeta)})</summary>${shownPrompt(q.prompt, maxPromptChars)}</details>
<p class="stem">${escapeHtml(stemAsSentence(q))}</p>
${answers}
<div class="controls">Status: <span class="status-value">unreviewed</span>
<button type="button" data-decide="approved">Approve</button><button type="button" data-decide="rejected">Reject</button><button type="button" data-decide="pending">Pending</button>
<textarea class="note" placeholder="note (why rejected, what to fix)"></textarea></div>
</article>`;
}

/** The page as a string: same questions, statuses and options give the same bytes. */
export function renderReviewPage(questions: readonly Question[], statuses: ReadonlyMap<string, ReviewStatus>, options: ReviewPageOptions = {}): string {
  const flagsById = new Map<string, Finding[]>();
  for (const f of options.findings ?? []) {
    const ids = typeof f.args.id === 'string' ? [f.args.id] : Array.isArray(f.args.ids) ? f.args.ids.filter((x): x is string => typeof x === 'string') : [];
    for (const id of ids) {
      const list = flagsById.get(id) ?? [];
      list.push(f);
      flagsById.set(id, list);
    }
  }
  const ids = questions.map((q) => q.id);
  const initial: Record<string, ReviewStatus> = {};
  const contents: Record<string, string> = {};
  const outdated = new Map<string, ReviewStatus>();
  for (const q of [...questions].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) {
    if (q.id in contents) continue;
    contents[q.id] = reviewContentHash(q);
    const s = statuses.get(q.id);
    if (!s) continue;
    if (isOutdated(q, s)) outdated.set(q.id, s);
    else initial[q.id] = s.note !== undefined ? { status: s.status, note: s.note } : { status: s.status };
  }
  const data = { setKey: contentId([...ids].sort()), statusFile: options.statusFile ?? null, initial, contents };
  const tasks = [...new Set(questions.map((q) => q.task))].sort();
  const kinds = [...new Set(questions.map((q) => q.kind))].sort();
  const operators = [...new Set(questions.flatMap((q) => q.build.operators ?? []))].sort();
  const flagCodes = [...new Set([...flagsById.values()].flat().map((f) => f.code))].sort();
  const optionList = (values: readonly string[]) => values.map((v) => `<option value="${escapeHtml(v)}">${escapeHtml(v)}</option>`).join('');
  const title = options.title ?? `aptpace review: ${questions.length} questions`;
  const csp = [
    "default-src 'none'",
    `style-src ${cspHash(STYLE)}`,
    `script-src ${cspHash(REVIEW_CLIENT_SCRIPT)}`,
    "img-src 'none'",
    "connect-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  const applyHint = options.statusFile
    ? `aptpace review QUESTIONS… --apply review-decisions.jsonl --status ${options.statusFile}`
    : 'aptpace review QUESTIONS… --apply review-decisions.jsonl --status STATUS.jsonl';
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
${REVIEW_PAGE_MARKER}
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<header>
<h1>${escapeHtml(title)}</h1>
<div class="bar">
<span>approved <b id="count-approved">0</b> · rejected <b id="count-rejected">0</b> · open <b id="count-pending">${questions.length}</b> · shown <b id="count-shown">${questions.length}</b> · decided here, not exported <b id="count-local">0</b></span>
<label>task <select id="filter-task"><option value="">all</option>${optionList(tasks)}</select></label>
<label>kind <select id="filter-kind"><option value="">all</option>${optionList(kinds)}</select></label>
<label>operator <select id="filter-operator"><option value="">all</option>${optionList(operators)}</select></label>
<label>audit flag <select id="filter-flag"><option value="">all</option><option value="*">any flag</option><option value="-">no flag</option>${optionList(flagCodes)}</select></label>
<label>status <select id="filter-status"><option value="">all</option><option value="open">open</option><option value="approved">approved</option><option value="rejected">rejected</option><option value="pending">pending</option><option value="unreviewed">unreviewed</option></select></label>
<label>search <input id="filter-text" type="search" placeholder="id, task, trajectory"></label>
<button type="button" id="bulk-approve">Approve shown</button>
<button type="button" id="bulk-reject">Reject shown</button>
<button type="button" id="export">Export decisions</button>
<button type="button" id="forget">Forget local decisions</button>
</div>
<p>Keys: <kbd>j</kbd>/<kbd>k</kbd> next/previous question, <kbd>a</kbd> approve, <kbd>r</kbd> reject, <kbd>p</kbd> pending, <kbd>n</kbd> note. Decisions are kept in this browser until exported. Export, then run <code>${escapeHtml(applyHint)}</code>.</p>
</header>
<main>
${questions.map((q) => card(q, flagsById.get(q.id) ?? [], options.maxPromptChars ?? 0, outdated.get(q.id))).join('\n')}
</main>
<script type="application/json" id="review-data">${jsonForScript(data)}</script>
<script>${REVIEW_CLIENT_SCRIPT}</script>
</body>
</html>
`;
}
