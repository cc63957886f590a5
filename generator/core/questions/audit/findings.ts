import type { FindingCatalog } from '../../kernel/findings.js';

const pct = (x: unknown) => `${(Number(x) * 100).toFixed(1)}%`;
const list = (ids: unknown) => {
  const all = Array.isArray(ids) ? ids.map(String) : [];
  return all.length <= 5 ? all.join(', ') : `${all.slice(0, 5).join(', ')} and ${all.length - 5} more`;
};
const p = (x: unknown) => (Number(x) < 0.001 ? Number(x).toExponential(1) : Number(x).toPrecision(2));
const pts = (x: unknown) => `${Number(x) >= 0 ? '+' : ''}${Number(x).toFixed(1)}`;

/** Codes raised by `aptpace audit` (and by the build, which runs the same audit). */
export const auditFindings = {
  'audit-shortcut-above-chance': {
    severity: 'error',
    title: 'A model-free shortcut beats chance',
    message: (a) =>
      `task ${a.task}: "${a.shortcut}" scores ${pct(a.accuracy)} (${a.correct}/${a.n}, 95% CI ${pct(a.low)}–${pct(a.high)}) vs chance ${pct(a.chance)}: ${pts(a.excessPoints)} points, beyond the ${a.maxShortcutGain}-point limit (exact one-sided Poisson-binomial p=${p(a.pValue)})`,
  },
  'audit-shortcut-below-chance': {
    severity: 'error',
    title: 'A model-free shortcut is reliably wrong',
    message: (a) =>
      `task ${a.task}: "${a.shortcut}" scores ${pct(a.accuracy)} (${a.correct}/${a.n}, 95% CI ${pct(a.low)}–${pct(a.high)}) vs chance ${pct(a.chance)}: ${pts(a.excessPoints)} points, so avoiding that option is a shortcut (one-sided p=${p(a.pValue)})`,
  },
  'audit-shortcut-not-significant': {
    severity: 'warning',
    title: 'Shortcut outside tolerance, but not significant',
    message: (a) =>
      `task ${a.task}: "${a.shortcut}" is ${pts(a.excessPoints)} points from chance (${a.correct}/${a.n}, 95% CI ${pct(a.low)}–${pct(a.high)}), beyond the ${a.maxShortcutGain}-point limit, but with ${a.n} questions that is not significant (p=${p(a.pValue)} ≥ ${p(a.alphaUsed)}); add questions to decide`,
  },
  'audit-adversary-above-chance': {
    severity: 'error',
    title: 'A learned options-only adversary beats chance',
    message: (a) =>
      `task ${a.task} (${a.language}): a discriminator trained on surface features of the options (${a.learner}) picks the gold in ${pct(a.accuracy)} of ${a.n} held-out questions (95% CI ${pct(a.low)}–${pct(a.high)}) vs chance ${pct(a.chance)}: ${pts(a.excessPoints)} points, and the whole interval is more than ${a.maxGain} points above chance`,
  },
  'audit-adversary-not-significant': {
    severity: 'warning',
    title: 'Learned adversary above the limit, but not significantly',
    message: (a) =>
      `task ${a.task} (${a.language}): the learned adversary (${a.learner}) picks the gold in ${pct(a.accuracy)} of ${a.n} held-out questions (95% CI ${pct(a.low)}–${pct(a.high)}) vs chance ${pct(a.chance)}: ${pts(a.excessPoints)} points, beyond the ${a.maxGain}-point limit, but its interval reaches chance + ${a.maxGain}; add questions to decide`,
  },
  'audit-multi-select-rule': {
    severity: 'error',
    title: 'A string rule solves a multi-select task',
    message: (a) =>
      `task ${a.task}${a.language ? ` (${a.language})` : ''}: the model-free rule "${a.rule}" matches the gold set exactly in ${pct(a.setMatch)} of ${a.n} questions (chance ${pct(a.chance)}), above the ${pct(a.limit)} limit`,
  },
  'audit-adversary-small': {
    severity: 'warning',
    title: 'Learned adversary above the limit on too few questions to gate',
    message: (a) =>
      `task ${a.task} (${a.language}): the learned adversary (${a.learner}) picks the gold in ${pct(a.accuracy)} of ${a.n} held-out questions vs chance ${pct(a.chance)}: ${pts(a.excessPoints)} points, beyond the ${a.maxGain}-point limit and above chance at p = ${a.pValue.toPrecision(2)}; under ${a.minQuestions} scored questions in this language the gate cannot decide, and the audit does not vouch for them; add questions to decide`,
  },
  'audit-too-few-to-judge': {
    severity: 'warning',
    title: 'Too few scored questions for the audit to vouch for',
    message: (a) =>
      `task ${a.task}: ${(a.cells as string[]).join(', ')} scored question(s), under the ${a.minQuestions} a language needs before the learned adversary and the string rules are gated; the audit does not vouch for them, and the task is WARN whatever its checks read at this size (a seed would decide them); add runs to decide`,
  },
  'audit-multi-select-rule-small': {
    severity: 'warning',
    title: 'A string rule solves a small multi-select task',
    message: (a) =>
      `task ${a.task}${a.language ? ` (${a.language})` : ''}: the model-free rule "${a.rule}" matches the gold set exactly in ${pct(a.setMatch)} of ${a.n} questions (chance ${pct(a.chance)}), above the ${pct(a.limit)} limit; too few questions to fail the task`,
  },
  'audit-completion-rule': {
    severity: 'error',
    title: 'A string rule answers a completion task',
    message: (a) =>
      `task ${a.task}: the model-free rule "${a.rule}" matches a target exactly in ${pct(a.accuracy)} of ${a.n} scored questions (95% CI ${pct(a.low)}–${pct(a.high)}), and the whole interval is above the ${pct(a.limit)} limit`,
  },
  'audit-completion-rule-not-significant': {
    severity: 'warning',
    title: 'A string rule answers a completion task, but not significantly',
    message: (a) =>
      `task ${a.task}: the model-free rule "${a.rule}" matches a target exactly in ${pct(a.accuracy)} of ${a.n} scored questions (95% CI ${pct(a.low)}–${pct(a.high)}), above the ${pct(a.limit)} limit, but the interval reaches it${Number(a.n) < Number(a.minQuestions) ? ` and the task has fewer than ${a.minQuestions} scored questions` : ''}; add questions to decide`,
  },
  'audit-letter-imbalance': {
    severity: 'error',
    title: 'Gold letters are unbalanced',
    message: (a) =>
      `task ${a.task}: gold is ${a.letter} in ${pct(a.observedShare)} of questions, expected ${pct(a.expectedShare)} (${pts(a.deviationPoints)} points; chi-square ${Number(a.chiSquare).toFixed(2)}, df ${a.df}, p=${p(a.pValue)}); histogram ${a.histogram}`,
  },
  'audit-letter-imbalance-not-significant': {
    severity: 'warning',
    title: 'Gold letters look unbalanced, but not significantly',
    message: (a) =>
      `task ${a.task}: gold is ${a.letter} in ${pct(a.observedShare)} of questions, expected ${pct(a.expectedShare)} (${pts(a.deviationPoints)} points), not significant with ${a.n} questions (p=${p(a.pValue)}); histogram ${a.histogram}`,
  },
  'audit-low-power': {
    severity: 'info',
    title: 'Task too small for the audit to see much',
    message: (a) =>
      a.detectablePoints === null
        ? `task ${a.task}: with ${a.n} MCQ question(s) not even a perfect shortcut score would be significant; the audit cannot vouch for this task`
        : `task ${a.task}: with ${a.n} MCQ questions a shortcut must beat chance by ${Number(a.detectablePoints).toFixed(1)} points to be significant; the audit cannot vouch for smaller biases`,
  },
  'audit-duplicate-question': {
    severity: 'error',
    title: 'Duplicate question',
    message: (a) => `task ${a.task}: question ${a.id} repeats ${a.firstId} (same prompt and answers after normalisation)`,
  },
  'audit-duplicate-prompt': {
    severity: 'warning',
    title: 'Same prompt, different answers',
    message: (a) => `task ${a.task}: question ${a.id} has the same prompt as ${a.firstId} but different choices or targets`,
  },
  'audit-duplicate-id': {
    severity: 'error',
    title: 'Duplicate question id',
    message: (a) => `id ${a.id} occurs more than once; ids key reviews and score matrices`,
  },
  'audit-gold-leaked': {
    severity: 'error',
    title: 'Gold text leaked into the prompt',
    message: (a) => `task ${a.task}: the gold option ${a.letter} of ${a.id} appears verbatim in the context outside the choice list, and no distractor does`,
  },
  'audit-gold-in-context': {
    severity: 'warning',
    title: 'Gold text appears in the context (as do distractors)',
    message: (a) =>
      `task ${a.task}: in ${a.count} of ${a.total} MCQs the gold text appears verbatim in the context, but so does a distractor, so copying alone does not single it out (${list(a.ids)})`,
  },
  'audit-short-target-in-prompt': {
    severity: 'warning',
    title: 'Short exact-match target appears in the prompt',
    message: (a) =>
      `task ${a.task}: ${a.count} of ${a.total} exact-match targets shorter than ${a.minChars} characters stand as whole tokens in their question (${list(a.ids)}); a model can copy them`,
  },
  'audit-target-in-prompt': {
    severity: 'warning',
    title: 'Completion target appears in the prompt',
    message: (a) =>
      `task ${a.task}: ${a.count} of ${a.total} completion targets appear verbatim in their prompt (${list(a.ids)}); a model can copy them, which is fine only if finding them in the context is the skill`,
  },
  'audit-distractor-equals-gold': {
    severity: 'error',
    title: 'A distractor equals the gold answer',
    message: (a) => `task ${a.task}: in ${a.id}, option ${a.distractor} equals the gold ${a.gold} after normalisation, so two answers are right`,
  },
  'audit-duplicate-distractors': {
    severity: 'error',
    title: 'Two distractors are identical',
    message: (a) => `task ${a.task}: in ${a.id}, options ${a.first} and ${a.second} are identical after normalisation`,
  },
  'audit-option-copied': {
    severity: 'error',
    title: 'A distractor is copied from the prompt',
    message: (a) =>
      `task ${a.task}: ${a.options} distractor(s) in ${a.questions} of ${a.total} MCQs appear verbatim in the prompt (history, tool list or shots), so they can be eliminated by copy-detection (${list(a.ids)}; id:letters)`,
  },
  'audit-undeclared-invalid-tool': {
    severity: 'error',
    title: 'A distractor calls a tool that is not offered',
    message: (a) =>
      `task ${a.task}: ${a.options} distractor(s) in ${a.questions} of ${a.total} MCQs call a tool not in the offered tool set and are not declared as invalid_tool distractors, so they can be rejected on sight (${list(a.ids)}; id:letters)`,
  },
  'audit-gold-tool-not-offered': {
    severity: 'warning',
    title: 'The gold calls a tool that is not offered',
    message: (a) =>
      `task ${a.task}: in ${a.questions} of ${a.total} MCQs the gold calls a tool missing from the offered tool set, so the tool set is wrong or incomplete (${list(a.ids)})`,
  },
  'audit-declared-invalid-tool-offered': {
    severity: 'warning',
    title: 'A distractor declared invalid_tool uses an offered tool',
    message: (a) =>
      `task ${a.task}: in ${a.questions} of ${a.total} MCQs a distractor declared invalid_tool calls a tool that is offered (or no recognisable tool) (${list(a.ids)})`,
  },
  'audit-near-duplicate': {
    severity: 'error',
    title: 'The same (trajectory prefix, gold) is asked several times',
    message: (a) =>
      `task ${a.task}: ${a.count} questions share one trajectory prefix and gold (${list(a.ids)}); they are one question and should be built once`,
  },
  'audit-invalid-mcq': {
    severity: 'error',
    title: 'Malformed MCQ',
    message: (a) => `task ${a.task}: ${a.id} cannot be audited: ${a.reason}`,
  },
} satisfies FindingCatalog;

export type AuditFindingCode = keyof typeof auditFindings;
