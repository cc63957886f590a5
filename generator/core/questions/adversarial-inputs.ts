/**
 * What the adversarial filter reads a draft as (adversarial-filter.ts), in two steps: the build's
 * thread renders the draft bare (`featureInput`, which needs the templates), and `featuresOf`
 * reads the adversary's features from that (the question segment, then every candidate's
 * features). The second step is a pure function of plain data, so the filter's worker can take
 * a share of the drafts (adversarial-thread.ts) while the build's thread reads the rest; the
 * features are the same bit for bit on either thread (structured clones are exact).
 */
import { type AdversaryTable, adversaryTable } from './audit/adversary-features.js';
import { questionSegment } from './audit/segment.js';
import type { QuestionDraft } from './types/module.js';
import type { McqQuestion } from './types.js';

/** A draft as `featuresOf` needs it: plain data, cloneable to a worker. */
export interface FeatureInput {
  id: string;
  group: string;
  kind: QuestionDraft['kind'];
  step: QuestionDraft['step'];
  offeredTools: QuestionDraft['offeredTools'];
  /** The draft's bare prompt and its choices as shown; null when it could not be rendered. */
  rendered: { prompt: string; questionStart: number; choices: string[] } | null;
  /** The goal and history as plain text, read when there is no rendered prompt. */
  plain: string;
  /** The gold, then every candidate distractor. */
  texts: string[];
}

export type RenderBare = (draft: QuestionDraft) => { prompt: string; questionStart: number | null } | null;

export function featureInput(item: { draft: QuestionDraft; id: string; group: string }, texts: string[], renderDraft: RenderBare | undefined): FeatureInput {
  const d = item.draft;
  const rendered = renderDraft?.(d);
  const input: FeatureInput = { id: item.id, group: item.group, kind: d.kind, step: d.step, offeredTools: d.offeredTools, rendered: null, plain: '', texts };
  if (rendered && d.mcq) input.rendered = { prompt: rendered.prompt, questionStart: rendered.questionStart ?? 0, choices: d.mcq.choices };
  else {
    const goal = typeof d.fields.goal === 'string' ? d.fields.goal : '';
    input.plain = `${goal}\n${d.history.map((h) => `${h.plan}\n${h.action}\n${h.observation ?? ''}`).join('\n')}`;
  }
  return input;
}

/**
 * The adversary's features of every text, reading the draft as the audit would: the question
 * segment of its rendered prompt (choice and tool lists cut out), or its goal and history as
 * plain text, then every candidate. The rows' set-dependent columns are those of all texts
 * shown together; the filter recomputes them for each set it shows (adversarial-choose.ts).
 */
export function featuresOf(input: FeatureInput): AdversaryTable {
  const history = input.rendered ? questionSegment(bare(input, input.rendered.prompt, input.rendered.questionStart, input.rendered.choices)).trajectory : input.plain;
  return adversaryTable(bare(input, `${history}\n${input.texts.map((t, i) => `(${i}) ${t}`).join('\n')}\n`, 0, input.texts));
}

function bare(input: FeatureInput, prompt: string, questionStart: number, choices: string[]): McqQuestion {
  return {
    schema_version: 'question/1',
    id: input.id,
    kind: input.kind,
    task: input.kind,
    format: 'mcq',
    prompt,
    prompt_tokens: 0,
    length_bucket: '<=4K',
    truncated: false,
    question_start: questionStart,
    provenance: { traj_id: input.group, source_path: '', step: input.step, framework: '' },
    build: { seed: '', template: '', offered_tools: input.offeredTools },
    choices,
    gold: 0,
    answer_stem: '',
  };
}
