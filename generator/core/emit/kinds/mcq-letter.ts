import type { McqQuestion } from '../../questions/types.js';
import { checkChoices, closerFor, commonColumns, joinerFor, promptBase, type TaskKindSpec } from './shared.js';

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/**
 * Multiple choice scored on the answer letter, APTBench style: the prompt lists `(A) …`
 * and ends with a stem such as `The correct next step is (`; each request's continuation
 * is one letter, so `acc_norm` would equal `acc` and is not reported.
 */
export const mcqLetter: TaskKindSpec<McqQuestion> = {
  kind: 'mcq_letter',
  title: 'Multiple choice, letter continuation',
  format: 'mcq',
  outputType: 'multiple_choice',
  metrics: ['acc'],
  check: (q) => checkChoices(q, LETTERS.length),
  document(q, shotTarget) {
    const { base, stem } = promptBase(q);
    const query = base + stem;
    const joiner = joinerFor(query);
    const choices = q.choices.map((_, i) => joiner + LETTERS[i]!);
    const row = { id: q.id, query, choices, gold: q.gold };
    return shotTarget ? { ...row, shot_target: choices[q.gold]! + closerFor(query), ...commonColumns(q) } : { ...row, ...commonColumns(q) };
  },
  config: () => ({
    output_type: 'multiple_choice',
    doc_to_choice: 'choices',
    doc_to_target: 'gold',
    metric_list: [{ metric: 'acc', aggregation: 'mean', higher_is_better: true }],
  }),
};
