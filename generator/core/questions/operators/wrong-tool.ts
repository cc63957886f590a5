import type { Action } from '../../trajectories/types.js';
import { withAction } from './edit.js';
import type { StepOperator } from './types.js';

/** Names models hallucinate for common tools (APTBench's released distractors include the same kind). */
const CONFUSIONS: Record<string, string[]> = {
  str_replace_editor: ['str_replace_edit', 'file_editor', 'edit_file'],
  bash: ['shell', 'run_bash', 'execute'],
  web_search: ['web_serach', 'search_web', 'google_search'],
  browse_website: ['browse_web', 'open_website', 'visit_page'],
  task_complete: ['complete_task', 'task_completed'],
  submit: ['sumbit', 'submit_patch'],
  python: ['pyhton', 'python4'],
  python3: ['pyhton3', 'python33'],
  pip: ['pipp', 'pip-install'],
  grep: ['gerp', 'grepp'],
  find: ['fnd', 'finds'],
  pytest: ['py.tests', 'pytests'],
  cat: ['cta', 'view'],
  git: ['gti', 'gitt'],
  conda: ['cnda', 'condaa'],
};

function misspell(name: string, variant: number): string {
  const known = CONFUSIONS[name];
  if (known) return known[variant % known.length]!;
  if (name.length >= 4) {
    const i = 1 + (variant % (name.length - 2));
    return name.slice(0, i) + name[i + 1] + name[i] + name.slice(i + 2);
  }
  return `${name}_tool`;
}

/** The right arguments under a misspelled or hallucinated tool / program name. */
export const wrongTool: StepOperator = {
  name: 'wrong_tool',
  description: 'a misspelled or hallucinated tool or program name with otherwise correct arguments',
  propose({ rng, gold }) {
    const a = gold.action;
    if (a.kind === 'finish' || a.kind === 'message') return [];
    const variant = rng.int(3);
    if (a.kind === 'shell' || !a.tool || a.tool === 'bash') {
      const m = /^(\s*(?:cd\s+\S+\s*&&\s*)?)([A-Za-z0-9_.-]+)/.exec(a.text);
      if (!m) return [];
      const program = m[2]!;
      const wrong = misspell(program, variant);
      const text = m[1] + wrong + a.text.slice(m[0].length);
      const args = { ...a.args };
      for (const key of ['command', 'cmd']) if (typeof args[key] === 'string') args[key] = (args[key] as string).replace(program, wrong);
      const action: Action = { ...a, text, args };
      // A derived plan would describe the typo as a new command; keep the gold's wording.
      return [{ plan: gold.plan, planGiven: true, action }];
    }
    const wrong = misspell(a.tool, variant);
    const action: Action = { ...a, tool: wrong, text: a.text.startsWith(a.tool) ? wrong + a.text.slice(a.tool.length) : a.text.replace(a.tool, wrong) };
    return [withAction({ ...gold, planGiven: true }, action, gold.plan)];
  },
};
