import type { McqQuestion } from '../../questions/types.js';
import { checkChoices, commonColumns, joinerFor, promptBase, type TaskKindSpec } from './shared.js';

/**
 * Multiple choice scored on the option text itself: the context ends with the answer stem
 * minus a trailing opening bracket (`The correct next step is`), and each continuation is a
 * whole option, so the model's likelihood of the content decides, not of a letter.
 */
export const mcqOption: TaskKindSpec<McqQuestion> = {
  kind: 'mcq_option',
  title: 'Multiple choice, option text continuation',
  format: 'mcq',
  outputType: 'multiple_choice',
  metrics: ['acc', 'acc_norm'],
  check: (q) => checkChoices(q, Number.POSITIVE_INFINITY),
  document(q, shotTarget) {
    const { base, stem } = promptBase(q);
    const query = base + stem.replace(/[ \t]*[([{<][ \t]*$/u, '');
    const joiner = joinerFor(query);
    const choices = q.choices.map((c) => joiner + c);
    const row = { id: q.id, query, choices, gold: q.gold };
    return shotTarget ? { ...row, shot_target: choices[q.gold]!, ...commonColumns(q) } : { ...row, ...commonColumns(q) };
  },
  config: () => ({
    output_type: 'multiple_choice',
    doc_to_choice: 'choices',
    doc_to_target: 'gold',
    metric_list: [
      { metric: 'acc', aggregation: 'mean', higher_is_better: true },
      { metric: 'acc_norm', aggregation: 'mean', higher_is_better: true },
    ],
  }),
};
