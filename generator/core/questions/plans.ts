import { singleSpaced } from '../kernel/whitespace.js';
import type { Action, Step } from '../trajectories/types.js';

/**
 * One-line plans. The intent the agent wrote (see intentOf) wins; otherwise the plan is
 * derived from the action alone, so that a gold plan and a plan derived from a perturbed
 * action read alike and the wording itself gives nothing away.
 */
const MAX_PLAN_CHARS = 240;

export function planOf(step: Pick<Step, 'plan' | 'action'> & { thought?: string | null }): string {
  return intentOf({ plan: step.plan, thought: step.thought ?? null }) ?? planFromAction(step.action);
}

/** A step as an option: its plan, whether that plan is the agent's own words, and its action. */
export function candidateOf(step: Pick<Step, 'plan' | 'action'> & { thought?: string | null }): { plan: string; planGiven: boolean; action: Action } {
  const intent = intentOf({ plan: step.plan, thought: step.thought ?? null });
  return { plan: intent ?? planFromAction(step.action), planGiven: intent !== null, action: step.action };
}

export function oneLine(text: string, max = MAX_PLAN_CHARS): string {
  const line = singleSpaced(text).trim();
  return line.length <= max ? line : `${line.slice(0, max - 1).trimEnd()}…`;
}

/**
 * Sentences that state what the agent will do next ("Let's open…", "I need to check…",
 * "Search for…"), as opposed to commentary on the last observation ("We see that…",
 * "Looks like it installed successfully."). A plan question's gold must be such an intent:
 * a comment on the observation is answerable by reading the observation, not by planning.
 */
const INTENT_RE = new RegExp(
  [
    String.raw`\b(?:let'?s|let me|let us)\b`,
    String.raw`\b(?:i|we)(?:'ll| will| need to| should| must| have to| want to| can now| can| am going to|'m going to| are going to|'re going to| shall)\b`,
    String.raw`\b(?:next|then|now|first|finally),? (?:i|we|let|to)\b`,
    String.raw`\b(?:to (?:verify|confirm|check|find|see|locate|fix|reproduce|understand|test|ensure|determine|identify|look))\b`,
    String.raw`^(?:open|run|search|find|look|check|create|edit|modify|update|add|remove|replace|install|submit|verify|confirm|browse|visit|read|view|inspect|examine|test|execute|navigate|explore|use|try|fix|implement|write|apply|re-?run|scroll|go|list|grep|locate|identify|determine|compare|review|query|perform|complete|finish|provide|answer|report|print|reproduce|investigate|retrieve|obtain|gather|collect|extract|terminate|summari[sz]e|research|resolve|clarify|cross-check|double-check|analy[sz]e|calculate|compute|conclude|end|stop|proceed|continue|attempt|seek|refine|narrow|focus|expand|broaden|validate|trace|match|correlate|establish|ascertain|pinpoint|access|consult|fetch|download|build|compile|make|set|configure|patch|change|revert|undo|restore|delete|move|rename|call|invoke|start|begin|record|note|save|cd|mkdir|cat|echo|clone|import|debug|reopen|recheck|re-?examine|re-?check|double|indicate|get|ask|request|select|choose|pick|search|look)\b`,
  ].join('|'),
  'i',
);

const ZH_INTENT_RE = /(查找|搜索|浏览|确认|核实|验证|获取|查询|查看|检索|寻找|打开|访问|了解|需要|接下来|下一步|然后|首先|最后|我将|我要|尝试|结束|完成|提供|回答|继续)/;

/** Sentences of a text, split after ., !, ? followed by whitespace (or after 。！？). */
export function sentences(text: string): string[] {
  const flat = singleSpaced(text).trim();
  if (!flat) return [];
  return flat.split(/(?<=[.!?])\s+(?=[^a-z])|(?<=[。！？])/u).map((x) => x.trim()).filter(Boolean);
}

/**
 * Intent-worded sentences that name nothing to do ("Let me try again.", "Let me summarize what I
 * found."): as a gold they are answerable by their wording alone, as a plan they say nothing.
 */
const VAGUE_RE = /^(?:now,?\s+|ok(?:ay)?,?\s+)?(?:let me|let's|i(?:'ll| will| need to| should| am going to))\s+(?:try(?: it| this)? again|try once more|try (?:a |another |a different )(?:way|approach)|summari[sz]e\b|recap\b|think\b|continue\b|proceed\b|reconsider\b|reflect\b|review (?:what|my|the (?:results|findings|information))\b)/i;
const ZH_VAGUE_RE = /^(?:现在)?(?:让我|我将|我来|我需要)?(?:再试一次|重试|重新尝试|总结|整理一下|思考一下|继续)/;

export function isIntent(sentence: string): boolean {
  const s = sentence.trim().replace(/^[*_`>\-\s]+/, '');
  // English sentences may quote Chinese names (广韵); only a sentence that opens in Chinese is read as Chinese.
  if (/^[^\p{L}]*[\u3400-\u9fff]/u.test(s)) return ZH_INTENT_RE.test(s) && !ZH_VAGUE_RE.test(s);
  return INTENT_RE.test(s) && !VAGUE_RE.test(s);
}

/**
 * The forward-looking part of a step's own text (plan, else thought): its intent sentences
 * joined, at most two, on one line. Null when the text carries no intent at all.
 */
export function intentOf(step: { plan?: string | null; thought?: string | null }): string | null {
  // A source's `plan` is used only when it is the whole thought or there is no thought: SWE
  // readers fill `plan` with the thought's first sentence, which is often commentary. The closest intent to the
  // action (the last one) is what the step carries out.
  const text = step.thought?.trim() || step.plan?.trim() || '';
  if (!text) return null;
  const kept = sentences(text).filter(isIntent);
  if (kept.length === 0) return null;
  // The intent closest to the action is the one it carries out; a short one gets its predecessor.
  const last = kept[kept.length - 1]!;
  return oneLine(last.length >= 40 || kept.length === 1 ? last : `${kept[kept.length - 2]} ${last}`);
}

/** First sentence of a thought, used when a template shows thoughts compactly. */
export function firstSentence(text: string): string {
  const flat = singleSpaced(text).trim();
  const m = /^(.+?[.!?])(\s|$)/.exec(flat);
  return oneLine(m ? m[1]! : flat);
}

function arg(action: Pick<Action, 'args'>, ...names: string[]): string | undefined {
  for (const n of names) {
    const v = action.args[n];
    if (typeof v === 'string' && v.trim()) return v.trim();
  }
  return undefined;
}

function quoteCode(text: string): string {
  return `\`${oneLine(text, 160)}\``;
}

/** Deterministic English description of what an action does. */
export function planFromAction(action: Pick<Action, 'kind' | 'tool' | 'args' | 'text'>): string {
  const tool = (action.tool ?? '').toLowerCase();
  if (tool === 'task_complete' || tool === 'finish' || tool === 'final_answer') return 'Finish the task and give the answer.';
  if (action.kind === 'finish') return 'Submit the current changes as the final solution.';
  const sub = arg(action, 'command', 'cmd');
  const path = arg(action, 'path', 'file', 'file_path', 'filename');
  if (tool.includes('editor') || tool === 'str_replace_editor' || tool === 'edit' || tool === 'view') {
    switch (sub) {
      case 'view':
        return path ? `Open ${path} to inspect its contents.` : 'Open the file to inspect its contents.';
      case 'create':
        return path ? `Create ${path} with the new code.` : 'Create a new file.';
      case 'str_replace':
      case 'insert':
        return path ? `Edit ${path} to change the relevant code.` : 'Edit the relevant code.';
      case 'undo_edit':
        return path ? `Undo the last edit to ${path}.` : 'Undo the last edit.';
    }
  }
  if (tool === 'web_search' || tool === 'search') {
    const q = arg(action, 'text', 'query', 'q');
    return q ? `Search the web for "${oneLine(q, 160)}".` : 'Search the web.';
  }
  if (tool === 'browse_website' || tool === 'browse' || tool === 'visit') {
    const url = arg(action, 'url');
    const q = arg(action, 'question', 'goal');
    return `Open ${url ?? 'the page'}${q ? ` to find ${oneLine(q, 120)}` : ''}.`;
  }
  const command = action.kind === 'shell' ? (arg(action, 'command', 'cmd') ?? action.text) : action.text;
  return planFromCommand(command);
}

function planFromCommand(command: string): string {
  const cmd = command.trim().split('\n')[0]!.replace(/^cd\s+\S+\s*&&\s*/, '');
  const words = cmd.split(/\s+/);
  const program = words[0] ?? '';
  const lastPath = [...words].reverse().find((w) => /[./]/.test(w) && !w.startsWith('-'));
  if (cmd === 'submit') return 'Submit the current changes as the final solution.';
  if (/^(grep|rg|ag|ack)$/.test(program) || (program === 'git' && words[1] === 'grep')) {
    const pattern = words.slice(1).find((w) => !w.startsWith('-'));
    return `Search the code for ${pattern ? quoteCode(pattern.replace(/^["']|["']$/g, '')) : 'the relevant code'}.`;
  }
  if (program === 'find') return `Find files${lastPath ? ` under ${lastPath}` : ''} by name.`;
  if (/^(pytest|tox|nox)$/.test(program) || cmd.includes('-m pytest') || cmd.includes('unittest')) {
    return `Run the tests${lastPath ? ` in ${lastPath}` : ''} to check the change.`;
  }
  if (/^python[0-9.]*$/.test(program)) {
    const script = words.slice(1).find((w) => !w.startsWith('-'));
    if (words[1] === '-c') return 'Run a short Python snippet to check the behaviour.';
    return script ? `Run ${script} to check the behaviour.` : 'Run Python to check the behaviour.';
  }
  if (/^(pip|pip3|conda|uv|poetry|npm|yarn|apt|apt-get|cargo|go)$/.test(program) && /install|add|create|sync/.test(words[1] ?? '')) {
    return `Install or set up dependencies with ${quoteCode(cmd)}.`;
  }
  if (/^(cat|head|tail|less|more|nl|sed)$/.test(program)) return `Read ${lastPath ?? 'the file'}.`;
  if (/^(ls|tree|pwd)$/.test(program)) return `List the contents of ${lastPath ?? 'the current directory'}.`;
  if (program === 'cd') return `Change into ${words[1] ?? 'the directory'}.`;
  if (program === 'git') return `Use git to ${words[1] ?? 'inspect the repository'}.`;
  return `Run ${quoteCode(cmd)}.`;
}
