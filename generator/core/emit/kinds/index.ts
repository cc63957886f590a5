import type { Question } from '../../questions/types.js';
import { completionExactMatch } from './completion-exact-match.js';
import { completionExactMatchRouge } from './completion-exact-match-rouge.js';
import { completionRouge } from './completion-rouge.js';
import { completionToolCall } from './completion-tool-call.js';
import { mcqLetter } from './mcq-letter.js';
import { mcqOption } from './mcq-option.js';
import { multiSelect } from './multi-select.js';
import type { TaskKind, TaskKindSpec } from './shared.js';

export type { TaskKind, TaskKindSpec, DocRow } from './shared.js';

/** Every kind of emitted task, in the order READMEs list them. */
export const TASK_KINDS = {
  mcq_letter: mcqLetter,
  mcq_option: mcqOption,
  completion_exact_match: completionExactMatch,
  completion_rouge: completionRouge,
  completion_exact_match_rouge: completionExactMatchRouge,
  completion_tool_call: completionToolCall,
  multi_select: multiSelect,
} as const satisfies Record<TaskKind, TaskKindSpec<any>>;

export type McqScoring = 'letter' | 'option';

/** The task kind one question compiles to under the suite's MCQ scoring. */
export function kindOf(q: Question, scoring: McqScoring): TaskKind {
  if (q.format === 'mcq') return scoring === 'letter' ? 'mcq_letter' : 'mcq_option';
  if (q.format === 'multi_select') return 'multi_select';
  switch (q.metric) {
    case 'exact_match':
      return 'completion_exact_match';
    case 'rouge':
      return 'completion_rouge';
    case 'exact_match+rouge':
      return 'completion_exact_match_rouge';
    case 'tool_call':
      return 'completion_tool_call';
  }
}
