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
      config = parse(await vfs.readText(yamlPath));
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
    const documents = text.split('\n').filter((l) => l.trim() !== '').length;
    if (documents > 0) tasks.push({ task, documents });
  }
  return { suite: { includePath, tasks }, findings: [] };
}
