import { spawn } from 'node:child_process';
import { cpSync, readdirSync, readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import * as path from 'node:path';
import { nodeVfs } from '../../generator/core/kernel/node-vfs.js';
import { readQuestions } from '../../generator/core/questions/read-questions.js';
import type { CompletionQuestion, McqQuestion, Question } from '../../generator/core/questions/types.js';
import { fixtures, harnessEnv, hasLmEval, inCi, python, repoRoot } from '../helpers/env.js';

export const FIXTURE_QUESTIONS = fixtures('emit', 'questions.jsonl');
export const FIXTURE_FEWSHOT = fixtures('emit', 'fewshot.jsonl');
export const DIST_SUITE = 'aptpace_fixtures';
export const DIST_DIR = path.join(repoRoot, 'dist-tasks', DIST_SUITE);
/** The exact arguments dist-tasks/README.md documents; the rebuild test replays them. */
export const DIST_ARGS = ['emit', 'fixtures/emit/questions.jsonl', '--fewshot-split', '--suite', DIST_SUITE, '--out'];
export const PROBE = path.join(repoRoot, 'test', 'emit', 'harness_probe.py');

/** Real-harness tests run when the venv exists, and always in CI (where its absence must fail). */
export const runHarnessTests = hasLmEval || inCi;

export async function fixtureQuestions(): Promise<Question[]> {
  const read = await readQuestions(nodeVfs, [FIXTURE_QUESTIONS]);
  if (read.tally.rejected) throw new Error(`fixture questions rejected: ${JSON.stringify(read.findings)}`);
  return read.questions;
}

let counter = 0;
const base = (over: Partial<Question>) => ({
  schema_version: 'question/1' as const,
  id: over.id ?? `q${String(++counter).padStart(4, '0')}`,
  kind: 'plan_mcq' as const,
  task: 'aptpace_swe_plan_mcq',
  prompt: 'Request: pick the next step.\nChoices:\n(A) open the file\n(B) run the tests\n',
  prompt_tokens: 20,
  length_bucket: '<=4K' as const,
  truncated: false,
  provenance: { traj_id: 'traj-1', source_path: 'x.traj', step: 1, framework: 'swe-agent' },
  build: { seed: 's', template: 't.hbs' },
});

export function mcq(over: Partial<McqQuestion> = {}): McqQuestion {
  return { ...base(over), format: 'mcq', choices: ['open the file', 'run the tests'], gold: 0, answer_stem: 'The correct next step is (', ...over } as McqQuestion;
}

export function completion(over: Partial<CompletionQuestion> = {}): CompletionQuestion {
  return {
    ...base(over),
    kind: 'next_action_tc',
    task: 'aptpace_swe_next_action',
    prompt: 'Previous commands:\nls\nThe next command:\n',
    format: 'completion',
    targets: ['cat setup.py'],
    metric: 'exact_match',
    stop: ['\n'],
    answer_stem: '```bash\n',
    ...over,
  } as CompletionQuestion;
}

export interface Spawned {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a program with the offline harness environment; never throws on a non-zero exit. */
export function run(command: string, args: string[], options: { cwd?: string; input?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Spawned> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd ?? repoRoot, env: { ...harnessEnv, PYTHONDONTWRITEBYTECODE: '1', ...options.env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    // Decode as a stream: a UTF-8 character split across two chunks must not become U+FFFD.
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}

export async function probe(args: string[], input?: string): Promise<any> {
  const r = await run(python, [PROBE, ...args], { input });
  if (r.code !== 0) throw new Error(`harness probe failed (${r.code}):\n${r.stderr.slice(-4000)}`);
  return JSON.parse(r.stdout);
}

export function copyTree(from: string, to: string): void {
  cpSync(from, to, { recursive: true });
}

const SAMPLE_FILE = /^samples_(.+)_(\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d(?:\.\d+)?)\.jsonl$/;

export interface HarnessRun {
  results: any;
  samples: Map<string, any[]>;
}

/** The newest results file of one model folder and the sample files of the same run. */
export function readRun(modelDir: string): HarnessRun {
  const names = readdirSync(modelDir).sort();
  const resultsFile = names.filter((n) => /^results_.*\.json$/.test(n)).pop();
  if (!resultsFile) throw new Error(`no results file in ${modelDir}: ${names.join(', ')}`);
  const stamp = resultsFile.slice('results_'.length, -'.json'.length);
  const samples = new Map<string, any[]>();
  for (const n of names) {
    const m = SAMPLE_FILE.exec(n);
    if (!m || m[2] !== stamp) continue;
    samples.set(m[1]!, readFileSync(path.join(modelDir, n), 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l)));
  }
  return { results: JSON.parse(readFileSync(path.join(modelDir, resultsFile), 'utf8')), samples };
}

export function jsonlRows(file: string): any[] {
  return readFileSync(file, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l));
}

/** The context the harness must build for row `doc` of a task (few-shot examples first, in file order). */
export function expectedContext(suiteDir: string, task: string, doc: any, shots: number): string {
  if (shots === 0) return doc.query;
  const pool = jsonlRows(path.join(suiteDir, 'data', `${task}.fewshot.jsonl`)).slice(0, shots);
  return pool.map((s) => `${s.query}${s.shot_target}\n\n`).join('') + doc.query;
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
