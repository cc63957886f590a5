/**
 * The group tree of a suite. The headline score of `<suite>` is the macro average over its
 * tasks (one task per question kind and language, each weighted equally), as APTBench
 * reports per-task scores and their mean: weighted by document count instead, one kind with
 * most of the documents would decide it. Subgroups split the same tasks by area (software
 * engineering, deep research, capture the flag) and, when the suite holds more than one language, by
 * language first. lm-eval 0.4.13 aggregates a group over all its leaf tasks
 * (`Group.get_all_tasks`), so nesting does not change the headline's weights.
 */
import type { Question } from '../questions/types.js';
import { QUESTION_KIND_INFO, isCtfTask } from '../questions/kinds.js';
import { ANSWER_FILTER, HEADLINE_METRIC } from './metrics.js';
import type { GroupConfigSubset } from './task-config.js';

export type Area = 'swe' | 'dr' | 'ctf';
export const AREA_TITLES: Record<Area, string> = {
  swe: 'software engineering (issue fixing and environment setup)',
  dr: 'deep research',
  ctf: 'capture the flag (security challenges)',
};
// ctf last: suites without CTF questions keep their groups and files exactly as before.
const AREA_ORDER: readonly Area[] = ['swe', 'dr', 'ctf'];

/**
 * The area of a question: the CTF task of a kind (`aptpace_ctf_…`, built from capture-the-flag
 * runs) is `ctf`; otherwise the kind's domain, or for a kind this table does not know, the task name.
 */
export function areaOf(q: Question): Area {
  if (isCtfTask(q.kind, q.task)) return 'ctf';
  const info = (QUESTION_KIND_INFO as Record<string, { domain: string } | undefined>)[q.kind];
  if (info) return info.domain === 'deep_research' ? 'dr' : 'swe';
  if (/(^|_)ctf(_|$)/.test(q.task)) return 'ctf';
  return /(^|_)dr(_|$)|deep_?research/.test(q.task) ? 'dr' : 'swe';
}

/** A question's language; questions written before the field existed are English. */
export function languageOf(q: Question): string {
  return (q as { language?: string }).language ?? 'en';
}

export interface GroupedTask {
  task: string;
  area: Area;
  language: string;
}

export interface PlannedGroup {
  name: string;
  /** Child tasks or subgroups, in order. */
  children: string[];
  /** Leaf tasks under this group. */
  leaves: string[];
  title: string;
  config: GroupConfigSubset;
}

/** Groups from the innermost out (the harness indexes them all; order only matters for files). */
export function planGroups(suite: string, tasks: GroupedTask[], multiLanguage: boolean, weightBySize: boolean, version: string): PlannedGroup[] {
  const groups: PlannedGroup[] = [];
  const make = (name: string, children: string[], leaves: GroupedTask[], title: string): PlannedGroup => {
    // One score per group: the headline, which every task reports under the one filter name.
    // Aggregating the other metrics too would print a row per metric and warn for every task
    // without it (a multiple-choice task has no exact_match).
    const config: GroupConfigSubset = {
      group: name,
      task: children,
      aggregate_metric_list: [{ metric: HEADLINE_METRIC, aggregation: 'mean', weight_by_size: weightBySize, filter_list: [ANSWER_FILTER] }],
      metadata: { version },
    };
    const group = { name, children, leaves: leaves.map((t) => t.task), title, config };
    groups.push(group);
    return group;
  };
  const byArea = (prefix: string, leaves: GroupedTask[], label: string): string[] =>
    AREA_ORDER.filter((a) => leaves.some((t) => t.area === a)).map((area) => {
      const inArea = leaves.filter((t) => t.area === area);
      return make(`${prefix}_${area}`, inArea.map((t) => t.task), inArea, `${label}${AREA_TITLES[area]}`).name;
    });

  if (multiLanguage) {
    const languages = [...new Set(tasks.map((t) => t.language))].sort();
    const languageGroups = languages.map((language) => {
      const inLanguage = tasks.filter((t) => t.language === language);
      return make(`${suite}_${language}`, byArea(`${suite}_${language}`, inLanguage, `${language}, `), inLanguage, `all ${language} tasks`).name;
    });
    make(suite, languageGroups, tasks, 'all tasks');
  } else {
    make(suite, byArea(suite, tasks, ''), tasks, 'all tasks');
  }
  return groups;
}

/** The groups top-down (the suite, then each subgroup before its own subgroups), for READMEs. */
export function treeOrder(groups: PlannedGroup[]): PlannedGroup[] {
  const byName = new Map(groups.map((g) => [g.name, g]));
  const out: PlannedGroup[] = [];
  const visit = (g: PlannedGroup) => {
    out.push(g);
    for (const child of g.children) {
      const sub = byName.get(child);
      if (sub) visit(sub);
    }
  };
  visit(groups[groups.length - 1]!);
  return out;
}
