import type { Action, Step } from '../trajectories/types.js';

/**
 * One-line plans. A plan given by the source wins; otherwise it is derived from the action
 * alone, so that a gold plan and a plan derived from a perturbed action read alike and the
 * wording itself gives nothing away.
 */
const MAX_PLAN_CHARS = 240;

export function planOf(step: Pick<Step, 'plan' | 'action'>): string {
  const given = step.plan ? oneLine(step.plan) : '';
  return given || planFromAction(step.action);
}

export function oneLine(text: string, max = MAX_PLAN_CHARS): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= max ? line : `${line.slice(0, max - 1).trimEnd()}…`;
}

/** First sentence of a thought, used when a template shows thoughts compactly. */
export function firstSentence(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
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
