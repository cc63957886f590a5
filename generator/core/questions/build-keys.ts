/** How a build names and keys its questions: near-duplicate identity across overlapping rows, and the language a trajectory is asked in. */
import { sha256 } from '../kernel/stable-json.js';
import type { Trajectory } from '../trajectories/types.js';
import { normaliseChoice } from './normalise.js';
import type { QuestionDraft } from './types/index.js';

/** Same goal, same steps shown, same gold: the identity of a question across overlapping rows. */
export function nearDuplicateKey(kind: string, d: QuestionDraft): string {
  const gold = d.mcq ? d.mcq.choices[d.mcq.gold]! : (d.completion?.targets ?? []).join('\u0001');
  const steps = d.history.map((v) => `${normaliseChoice(v.plan)}\u0002${normaliseChoice(v.action)}`);
  return sha256([kind, normaliseChoice(String(d.fields.goal ?? '')), ...steps, normaliseChoice(gold)].join('\u0000'));
}

/**
 * The language a trajectory's questions are written in: the reader's (or `--language`'s)
 * `task.language` when it is one we have templates for, else detected from the goal.
 */
export function questionLanguage(t: Trajectory): 'en' | 'zh' {
  const given = t.task.language;
  return given === 'en' || given === 'zh' ? given : languageOf(t.task.goal);
}

const CJK = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3000-\u303f\uff00-\uffef]/gu;
const LATIN = /[A-Za-z]/g;

/**
 * `zh` when CJK characters make up at least a fifth of the letters (a CJK character carries
 * about a word, a Latin word about five letters, so this is roughly "half the words"): an
 * English question naming 爱因斯坦 stays English. The one detector for templates and labels.
 */
export function languageOf(text: string): 'en' | 'zh' {
  const cjk = text.match(CJK)?.length ?? 0;
  const latin = text.match(LATIN)?.length ?? 0;
  return cjk > 0 && cjk >= 0.2 * (cjk + latin) ? 'zh' : 'en';
}
