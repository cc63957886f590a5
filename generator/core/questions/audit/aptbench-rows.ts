/**
 * APTBench's released MCQ rows (`issue_fix/locate`, `env_setup/error`, `deepresearch/plan_*`)
 * as audit questions, so the same shortcut rules can be applied to the reference benchmark.
 * Plan rows follow the tail of APTBench's `deepresearch_plan` template (question, raw trajectory
 * JSON, tool set, choices); locate and error rows get a minimal prompt (the issue or setup text,
 * then the choices) because only the text the options are read against matters to the rules.
 * The rows carry no question offset or declared tool set, so the audit derives both from the
 * prompt and reports them as derived.
 */
import { type Finding, type Tally, emptyTally, findingFactory } from '../../kernel/findings.js';
import { readJsonlValues } from '../../kernel/jsonl.js';
import type { Vfs } from '../../kernel/vfs.js';
import { FindingCollector } from '../../kernel/finding-collector.js';
import { FINDINGS_PER_FILE_CODE, type ReadQuestionsOptions } from '../read-questions.js';
import { questionFindings } from '../findings.js';
import { QUESTION_SCHEMA_VERSION, type McqQuestion } from '../types.js';
import { languageOf } from '../build-keys.js';

const make = findingFactory(questionFindings);

type Row = Record<string, unknown>;

interface RowKind {
  name: string;
  matches(row: Row): boolean;
  prompt(row: Row, choices: string): { body: string; stem: string };
}

const str = (x: unknown) => (typeof x === 'string' ? x : x === undefined || x === null ? '' : JSON.stringify(x));

const KINDS: RowKind[] = [
  {
    name: 'deepresearch_plan',
    matches: (r) => 'query' in r && 'trajectory' in r && 'choices' in r,
    prompt: (r, choices) => ({
      body: `${str(r.question_instruct) ? `${str(r.question_instruct)}\n\n` : ''}Question: ${str(r.query)}\nExecuted trajectory: ${str(r.trajectory)}\n${r.tool_set ? `Tool set: ${str(r.tool_set)}\n` : ''}Choices of next step:\n${choices}\n`,
      stem: 'The corrected next step should be (',
    }),
  },
  {
    name: 'issue_fix_locate',
    matches: (r) => 'issue_statement' in r && 'choices' in r,
    prompt: (r, choices) => ({ body: `Issue:\n${str(r.issue_statement)}\nChoices:\n${choices}\n`, stem: 'The buggy code is (' }),
  },
  {
    name: 'env_setup_error',
    matches: (r) => 'setup_instruct' in r && 'choices' in r,
    prompt: (r, choices) => ({
      body: `Setup:\n${str(r.setup_instruct)}\nIssue: ${str(r.issue_title)}\n${str(r.issue_body)}\nChoices:\n${choices}\n`,
      stem: 'The correct solution is (',
    }),
  },
];

/**
 * Splits APTBench's rendered choice string into options. Options are introduced by `(A) `,
 * `(B) `, … in order, at the start or after whitespace (env_setup/error puts them inline);
 * searching only for the next expected letter keeps a `(B)` inside an option's text from being
 * taken for a marker unless it is the next letter.
 */
export function splitChoices(rendered: string): string[] {
  const starts: number[] = [];
  let from = 0;
  for (let i = 0; i < 26; i++) {
    const marker = `(${String.fromCharCode(65 + i)}) `;
    let at = rendered.indexOf(marker, from);
    while (at > 0 && !/\s/.test(rendered[at - 1]!)) at = rendered.indexOf(marker, at + 1);
    if (at < 0) break;
    starts.push(at);
    from = at + marker.length;
  }
  return starts.map((s, i) => rendered.slice(s + 4, starts[i + 1] ?? rendered.length).trim());
}

/** One released row as an MCQ, or the reason it cannot be one. */
export function aptbenchRowToQuestion(row: Row, source: { file: string; line: number }): McqQuestion | string {
  const kind = KINDS.find((k) => k.matches(row));
  if (!kind) return 'not an APTBench MCQ row (expected issue_statement, setup_instruct or query + trajectory, with choices)';
  const rendered = str(row.choices);
  const choices = splitChoices(rendered);
  if (choices.length < 2) return 'choices do not parse into at least two (A) … options';
  const answer = str(row.answer).trim();
  const gold = /^[A-Z]$/.test(answer) ? answer.charCodeAt(0) - 65 : -1;
  if (gold < 0 || gold >= choices.length) return `answer ${JSON.stringify(answer)} is not one of the ${choices.length} option letters`;
  const { body, stem } = kind.prompt(row, rendered);
  const rowId = str(row.uuid ?? row.qid ?? '') || `line${source.line}`;
  const traj = str(row.traj_id ?? row.uuid ?? rowId);
  return {
    schema_version: QUESTION_SCHEMA_VERSION,
    id: `aptbench_${kind.name}.${rowId}`.replace(/[^A-Za-z0-9_.:-]/g, '_'),
    kind: kind.name === 'deepresearch_plan' ? 'dr_plan_mcq' : kind.name === 'issue_fix_locate' ? 'bug_locate_mcq' : 'env_setup_plan_mcq',
    task: `aptbench_${kind.name}`,
    format: 'mcq',
    prompt: `${body}${stem}`,
    prompt_tokens: 0,
    length_bucket: '<=4K',
    truncated: false,
    provenance: { traj_id: `aptbench:${traj}`, source_path: source.file, source_line: source.line, step: null, framework: 'aptbench' },
    build: { seed: '', template: `aptbench/${kind.name}` },
    answer_stem: stem,
    // Released rows carry no language field: the question's own text says it (their observations mix languages).
    language: languageOf(str(row.query ?? row.issue_statement ?? row.setup_instruct ?? '') || body),
    choices,
    gold,
  };
}

/**
 * Reads released APTBench MCQ JSONL files; bad rows are findings with file and line, bounded
 * in memory the way the question reader bounds them (every one goes to `onFinding`).
 */
export async function readAptbenchRows(vfs: Vfs, files: readonly string[], options: ReadQuestionsOptions = {}): Promise<{ questions: McqQuestion[]; findings: Finding[]; tally: Tally }> {
  const questions: McqQuestion[] = [];
  const findings = new FindingCollector({ perFile: true, keepPerCode: FINDINGS_PER_FILE_CODE, onFinding: options.onFinding });
  const tally = emptyTally();
  for (const file of files) {
    const stat = await vfs.stat(file).catch(() => undefined);
    if (!stat || !stat.isFile) {
      await findings.add(make('question-missing-file', { file }, { reason: stat ? 'not a file' : 'no such file' }));
      continue;
    }
    for await (const ev of readJsonlValues(vfs, file)) {
      tally.read++;
      if (ev.kind !== 'value') {
        tally.rejected++;
        await findings.add(ev.kind === 'invalid-utf8' ? make('question-invalid-utf8', { file, line: ev.line }) : make('question-invalid-json', { file, line: ev.line }, { reason: ev.message }));
        continue;
      }
      const value = ev.value;
      const q = value && typeof value === 'object' && !Array.isArray(value) ? aptbenchRowToQuestion(value as Row, { file, line: ev.line }) : 'not a JSON object';
      if (typeof q === 'string') {
        tally.rejected++;
        await findings.add(make('question-schema', { file, line: ev.line }, { problem: q, keyword: 'aptbench-row' }));
      } else {
        tally.accepted++;
        questions.push(q);
      }
    }
  }
  return { questions, findings: findings.findings(), tally };
}
