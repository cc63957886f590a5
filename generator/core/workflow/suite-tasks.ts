/**
 * Reads an emitted aptpace suite folder (its manifest and task YAMLs) for what a run plan
 * needs: the tasks in suite order and each task's test-split document count.
 */
import * as path from 'node:path';
import { parse } from 'yaml';
import { type Finding, findingFactory } from '../kernel/findings.js';
import type { Vfs } from '../kernel/vfs.js';
import { workflowFindings } from './findings.js';
import { verifySuiteFolder } from '../emit/suite-state.js';
import type { SuiteTasks } from './run-plan.js';

const make = findingFactory(workflowFindings);
const MANIFEST = 'aptpace-manifest.json';

/**
 * Tokens one generated token costs, in prompt tokens: a decoding step re-reads the whole
 * context's KV cache for one token, so a generation task's cost grows with max_gen_toks.
 */
const GENERATED_TOKEN_COST = 1 / 16;

interface TaskShape {
  outputType: string;
  maxGenToks: number;
}

/** output_type and max_gen_toks of a task, following its `include:` (one level, as emit writes). */
async function taskShape(vfs: Vfs, suiteDir: string, config: any): Promise<TaskShape> {
  let base: any = {};
  if (typeof config?.include === 'string') {
    try {
      base = parse(await vfs.readText(path.resolve(suiteDir, config.include)), { logLevel: 'error' }) ?? {};
    } catch {
      base = {};
    }
  }
  const outputType = String(config?.output_type ?? base?.output_type ?? 'multiple_choice');
  const max = Number(config?.generation_kwargs?.max_gen_toks ?? base?.generation_kwargs?.max_gen_toks ?? 256);
  return { outputType, maxGenToks: Number.isFinite(max) && max > 0 ? max : 256 };
}

/**
 * A document's estimated cost: its prompt tokens (the emitted row's `prompt_tokens`, else
 * characters / 4) times the forward passes it takes — one per choice for multiple choice,
 * 1 + max_gen_toks / 16 for generation.
 */
export function documentCost(row: string, shape: TaskShape): number {
  let doc: any;
  try {
    doc = JSON.parse(row);
  } catch {
    doc = {};
  }
  const tokens = typeof doc?.prompt_tokens === 'number' && doc.prompt_tokens > 0 ? doc.prompt_tokens : Math.max(1, Math.ceil(String(doc?.query ?? row).length / 4));
  if (shape.outputType === 'generate_until') return tokens * (1 + shape.maxGenToks * GENERATED_TOKEN_COST);
  if (shape.outputType === 'multiple_choice') return tokens * Math.max(1, Array.isArray(doc?.choices) ? doc.choices.length : 1);
  return tokens;
}

export async function readSuiteTasks(vfs: Vfs, suiteDir: string, includePath: string): Promise<{ suite?: SuiteTasks; findings: Finding[] }> {
  const fail = (reason: string, file = suiteDir) => ({ findings: [make('plan-suite-unreadable', { file }, { reason })] });
  const manifestPath = path.join(suiteDir, MANIFEST);
  let manifest: { tasks?: unknown };
  try {
    manifest = JSON.parse(await vfs.readText(manifestPath));
  } catch (err) {
    return fail(`no readable ${MANIFEST} (emit a suite with aptpace emit first): ${(err as Error).message}`, manifestPath);
  }
  if (!Array.isArray(manifest.tasks) || manifest.tasks.some((t) => typeof t !== 'string')) return fail('the manifest has no task list', manifestPath);
  // A suite an emit left half written (or whose files were swapped) is never planned.
  const torn = await verifySuiteFolder(vfs, suiteDir, includePath);
  if (torn.length) return { findings: torn };
  const tasks: SuiteTasks['tasks'] = [];
  for (const task of manifest.tasks as string[]) {
    const yamlPath = path.join(suiteDir, `${task}.yaml`);
    let config: any;
    try {
      // Our task YAMLs carry no harness-only tags; `include:` defaults hold no data_files.
      config = parse(await vfs.readText(yamlPath), { logLevel: 'error' });
    } catch (err) {
      return fail(`task ${task}: ${(err as Error).message}`, yamlPath);
    }
    const test = config?.dataset_kwargs?.data_files?.test;
    if (typeof test !== 'string') return fail(`task ${task} names no data_files.test`, yamlPath);
    const dataPath = path.resolve(suiteDir, test);
    let text: string;
    try {
      text = await vfs.readText(dataPath);
    } catch (err) {
      return fail(`task ${task}: ${(err as Error).message}`, dataPath);
    }
    const rows = text.split('\n').filter((l) => l.trim() !== '');
    const shape = await taskShape(vfs, suiteDir, config);
    if (rows.length > 0) tasks.push({ task, documents: rows.length, costs: rows.map((row) => documentCost(row, shape)) });
  }
  return { suite: { includePath, tasks }, findings: [] };
}
