import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { type Finding, type FindingPath, type Tally, emptyTally, findingFactory } from '../kernel/findings.js';
import { readJsonlValues } from '../kernel/jsonl.js';
import { describeFsError, isFsError } from '../kernel/walk.js';
import type { Vfs } from '../kernel/vfs.js';
import { FindingCollector, type FindingListener } from '../kernel/finding-collector.js';
import { questionFindings } from './findings.js';
import { QUESTION_KIND_INFO, isCtfTask, isQuestionKind } from './kinds.js';
import { normaliseChoice } from './normalise.js';
import { questionSchema } from './schema.js';
import type { MultiSelectQuestion, Question } from './types.js';

const make = findingFactory(questionFindings);

let compiled: ValidateFunction | undefined;
function validator(): ValidateFunction {
  if (!compiled) {
    const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
    compiled = ajv.compile(questionSchema);
  }
  return compiled;
}

/**
 * Checks one question against the schema and the rules a schema cannot say (gold in range,
 * distinct choices). `path` is merged into every finding so readers can add file:line.
 */
export function validateQuestion(q: unknown, path: FindingPath = {}): Finding[] {
  const validate = validator();
  if (!validate(q)) return schemaFindings(validate.errors ?? [], q, path);
  const question = q as Question;
  const out: Finding[] = [];
  // Checked here, not by `minLength`: ajv counts code points over the whole 100 KB prompt.
  if (question.prompt.length === 0) out.push(make('question-schema', { ...path, field: 'prompt' }, { problem: 'must not be empty', keyword: 'minLength' }));
  if (!question.prompt.endsWith(question.answer_stem)) out.push(make('question-stem-not-at-end', { ...path, field: 'answer_stem' }, { stem: question.answer_stem }));
  if (question.format === 'mcq') {
    if (question.gold >= question.choices.length) {
      out.push(make('question-gold-out-of-range', { ...path, field: 'gold' }, { gold: question.gold, choices: question.choices.length }));
    }
    const seen = new Map<string, number>();
    question.choices.forEach((choice, i) => {
      const key = normaliseChoice(choice);
      const first = seen.get(key);
      if (first !== undefined) {
        out.push(make('question-duplicate-choice', { ...path, field: `choices[${i}]` }, { first: letter(first), second: letter(i) }));
      } else seen.set(key, i);
    });
  }
  if (question.format === 'multi_select') out.push(...multiSelectProblems(question, path));
  if (isQuestionKind(question.kind)) {
    const expected = QUESTION_KIND_INFO[question.kind].task;
    // Custom task names are allowed (users may split suites), but flag them for review. The
    // kind's CTF task (questions from capture-the-flag runs) is one of its own names.
    if (!question.task.startsWith(expected) && !isCtfTask(question.kind, question.task)) {
      out.push(make('question-task-mismatch', { ...path, field: 'task' }, { task: question.task, kind: question.kind, expected }));
    }
  }
  return out;
}

/** Golds in range, distinct and ascending; the canonical answer text names exactly them; choices distinct. */
function multiSelectProblems(q: MultiSelectQuestion, path: FindingPath): Finding[] {
  const out: Finding[] = [];
  const golds = JSON.stringify(q.golds);
  if (q.golds.some((g) => g >= q.choices.length)) out.push(make('question-golds-invalid', { ...path, field: 'golds' }, { golds, problem: `point past the ${q.choices.length} choices` }));
  else if (q.golds.some((g, i) => i > 0 && g <= q.golds[i - 1]!)) out.push(make('question-golds-invalid', { ...path, field: 'golds' }, { golds, problem: 'must be distinct and ascending' }));
  else if (q.targets[0] !== q.golds.map((g) => g + 1).join(', ')) out.push(make('question-golds-invalid', { ...path, field: 'targets' }, { golds, problem: `do not match the answer text ${JSON.stringify(q.targets[0])}` }));
  const seen = new Map<string, number>();
  q.choices.forEach((choice, i) => {
    const key = normaliseChoice(choice);
    const first = seen.get(key);
    if (first !== undefined) out.push(make('question-duplicate-choice', { ...path, field: `choices[${i}]` }, { first: first + 1, second: i + 1 }));
    else seen.set(key, i);
  });
  return out;
}

function letter(i: number): string {
  return String.fromCharCode(65 + i);
}

/**
 * ajv reports every failing branch of the mcq/completion `oneOf`; report only the branch
 * that matches the record's own `format` so the user sees the real problem.
 */
function schemaFindings(errors: ErrorObject[], q: unknown, path: FindingPath): Finding[] {
  const format = q && typeof q === 'object' ? (q as Record<string, unknown>).format : undefined;
  const branch = format === 'mcq' ? '/oneOf/0/' : format === 'completion' ? '/oneOf/1/' : format === 'multi_select' ? '/oneOf/2/' : undefined;
  let relevant = errors.filter((e) => (branch ? e.schemaPath.includes(branch) : true));
  if (relevant.length === 0) relevant = errors.filter((e) => e.keyword !== 'oneOf');
  if (relevant.length === 0) relevant = errors;
  const seen = new Set<string>();
  const out: Finding[] = [];
  for (const e of relevant) {
    const field = fieldOf(e);
    const problem = describe(e);
    const key = `${field}\u0000${problem}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(make('question-schema', { ...path, field: field || undefined }, { problem, keyword: e.keyword }));
  }
  return out;
}

function fieldOf(e: ErrorObject): string {
  const parts = e.instancePath.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (e.keyword === 'required') parts.push(String((e.params as { missingProperty: string }).missingProperty));
  if (e.keyword === 'additionalProperties') parts.push(String((e.params as { additionalProperty: string }).additionalProperty));
  let out = '';
  for (const p of parts) out += /^\d+$/.test(p) ? `[${p}]` : out ? `.${p}` : p;
  return out;
}

function describe(e: ErrorObject): string {
  switch (e.keyword) {
    case 'required':
      return 'required field is missing';
    case 'additionalProperties':
      return 'unknown field';
    case 'enum':
      return `must be one of ${JSON.stringify((e.params as { allowedValues: unknown[] }).allowedValues)}`;
    case 'const':
      return `must be ${JSON.stringify((e.params as { allowedValue: unknown }).allowedValue)}`;
    default:
      return e.message ?? e.keyword;
  }
}

/** Findings of one code held per file; the rest go only to the listener and are counted in one `findings-folded`. */
export const FINDINGS_PER_FILE_CODE = 1000;

export interface ReadQuestionsOptions {
  /** Every finding as it comes (the CLI's --findings-file); only a bounded number are returned. */
  onFinding?: FindingListener;
}

/**
 * Streams question JSONL files. Each bad line yields findings with file, line and field and
 * is counted as rejected; the rest of the file is still read. Duplicate ids are rejected
 * (the first occurrence wins) because ids key reviews, logs and score matrices. Memory stays
 * bounded however many lines are bad: every finding goes to `onFinding`, and past
 * FINDINGS_PER_FILE_CODE of one code in one file the rest are only counted (one
 * `findings-folded` at the end says how many).
 */
export async function readQuestions(vfs: Vfs, files: string[], options: ReadQuestionsOptions = {}): Promise<{ questions: Question[]; findings: Finding[]; tally: Tally }> {
  const questions: Question[] = [];
  const collector = new FindingCollector({ perFile: true, keepPerCode: FINDINGS_PER_FILE_CODE, onFinding: options.onFinding });
  const tally = emptyTally();
  const firstSeen = new Map<string, { file: string; line: number }>();

  for (const file of files) {
    const stat = await vfs.stat(file).catch(() => undefined);
    if (!stat || !stat.isFile) {
      await collector.add(make('question-missing-file', { file }, { reason: stat ? 'not a file' : 'no such file' }));
      continue;
    }
    // One finding per file that holds other records, sent once the file is read (it counts the lines).
    let wrongKind: { kind: string; hint: string; line: number; lines: number } | undefined;
    try {
      for await (const ev of readJsonlValues(vfs, file)) {
        tally.read++;
        if (ev.kind === 'invalid-utf8' || ev.kind === 'invalid-json') {
          tally.rejected++;
          await collector.add(ev.kind === 'invalid-utf8' ? make('question-invalid-utf8', { file, line: ev.line }) : make('question-invalid-json', { file, line: ev.line }, { reason: ev.message }));
          continue;
        }
        if (!ev.terminated) await collector.add(make('question-unterminated-line', { file, line: ev.line }));
        const value = ev.value;
        // A trajectory file given where questions are expected: one finding that says what the
        // file is and what to run, not one schema error per missing question field per line.
        const kind = wrongFileKind(value);
        if (kind) {
          tally.rejected++;
          if (wrongKind) wrongKind.lines++;
          else wrongKind = { ...kind, line: ev.line, lines: 1 };
          continue;
        }
        const problems = validateQuestion(value, { file, line: ev.line });
        for (const p of problems) await collector.add(p);
        if (problems.some((p) => p.severity === 'error')) {
          tally.rejected++;
          continue;
        }
        const q = value as Question;
        const first = firstSeen.get(q.id);
        if (first) {
          tally.rejected++;
          await collector.add(
            make('question-duplicate-id', { file, line: ev.line, field: 'id' }, { id: q.id, firstLine: first.line, firstFile: first.file === file ? undefined : first.file }),
          );
          continue;
        }
        firstSeen.set(q.id, { file, line: ev.line });
        tally.accepted++;
        questions.push(q);
      }
    } catch (err) {
      // An unreadable file (permissions, an I/O error half way) costs that file, not the run.
      if (!isFsError(err)) throw err;
      tally.rejected++;
      await collector.add(make('question-missing-file', { file }, { reason: `cannot be read (${describeFsError(err)})` }));
    }
    if (wrongKind) await collector.add(make('question-file-wrong-kind', { file, line: wrongKind.line }, { kind: wrongKind.kind, hint: wrongKind.hint, lines: wrongKind.lines }));
  }
  return { questions, findings: collector.findings(), tally };
}

/** Recognises records of the other files a user may pass by mistake (trajectories, harness samples). */
function wrongFileKind(value: unknown): { kind: string; hint: string } | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const v = value as Record<string, unknown>;
  if (v.schema_version === 'traj/1' || (Array.isArray(v.steps) && typeof v.traj_id === 'string')) {
    return { kind: 'canonical trajectories (traj/1)', hint: 'build questions from it first: aptpace build FILE --out questions.jsonl' };
  }
  if ('doc_hash' in v && 'resps' in v && 'doc' in v) {
    return { kind: 'lm-eval samples', hint: 'harness output goes to aptpace ingest LOG_DIR --out STORE' };
  }
  if (Array.isArray(v.trajectory) || Array.isArray(v.history)) {
    return { kind: 'agent trajectory', hint: 'normalize or build it first: aptpace build FILE --out questions.jsonl' };
  }
  return undefined;
}
