/**
 * The proxy-only suite: the emitted suite cut down to exactly the proxy documents, so a
 * checkpoint's harness run costs the proxy set and nothing else. Documents are copied byte for
 * byte and task and group names are kept, so the harness logs the same doc and prompt hashes
 * and ingest keys the results to the same `<task>/<question id>` instances as the full suite.
 * Tasks without a proxy document are dropped, and so are groups left empty.
 */
import * as path from 'node:path';
import { parseDocument, isMap, isSeq, isScalar, type Document } from 'yaml';

export interface ProxySuiteInput {
  /** Every file of the emitted suite, by path relative to the suite folder. */
  files: Map<string, string>;
  /** Proxy instances: task → instance ids (question ids, or doc positions for suites without ids). */
  proxy: Map<string, Set<string>>;
}

export interface ProxySuite {
  files: Map<string, string>;
  /** Documents kept per task, in suite order. */
  kept: Array<{ task: string; documents: number; of: number }>;
  /** Proxy instances the suite does not hold (task missing, or no document with that id). */
  missing: string[];
  /** Config file of each kept task. */
  taskFiles: Map<string, string>;
  /** Config files of the kept groups that no other kept group lists (what `--tasks` names). */
  topGroupFiles: string[];
}

const MANIFEST = 'aptpace-manifest.json';

function dataFileOf(doc: Document): string | undefined {
  const test = doc.getIn(['dataset_kwargs', 'data_files', 'test']);
  return typeof test === 'string' ? test : undefined;
}

export function buildProxySuite(input: ProxySuiteInput): ProxySuite {
  const out = new Map<string, string>();
  const kept: ProxySuite['kept'] = [];
  const found = new Map<string, Set<string>>();
  const taskYamls = new Map<string, { file: string; doc: Document }>();
  const groupYamls: Array<{ file: string; doc: Document }> = [];
  for (const [file, text] of input.files) {
    if (!/\.ya?ml$/.test(file)) continue;
    // The harness's own tags (`!function`) are kept as unknown-tag scalars and written back.
    const doc = parseDocument(text, { prettyErrors: false, customTags: [{ tag: '!function', resolve: (s: string) => s }] as any });
    const task = doc.get('task');
    if (doc.get('group') !== undefined) groupYamls.push({ file, doc });
    else if (typeof task === 'string' && dataFileOf(doc)) taskYamls.set(task, { file, doc });
  }
  const dropped = new Set<string>();
  const dataFiles = new Set<string>();
  for (const [task, { doc }] of [...taskYamls].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const dataFile = path.posix.normalize(dataFileOf(doc)!);
    dataFiles.add(dataFile);
    const wanted = input.proxy.get(task);
    const lines = (input.files.get(dataFile) ?? '').split('\n').filter((l) => l.trim() !== '');
    const keep: string[] = [];
    lines.forEach((line, position) => {
      let id: string | undefined;
      try {
        const value = JSON.parse(line);
        id = typeof value?.id === 'string' && value.id !== '' ? value.id : undefined;
      } catch {
        id = undefined;
      }
      const key = id ?? String(position);
      if (wanted?.has(key)) {
        keep.push(line);
        (found.get(task) ?? found.set(task, new Set()).get(task)!).add(key);
      }
    });
    if (keep.length === 0) {
      dropped.add(task);
      continue;
    }
    out.set(dataFile, `${keep.join('\n')}\n`);
    kept.push({ task, documents: keep.length, of: lines.length });
  }
  // Groups: drop members that were dropped, repeatedly (a group left empty is dropped too).
  let changed = true;
  const emptyGroups = new Set<string>();
  while (changed) {
    changed = false;
    for (const { doc } of groupYamls) {
      const name = String(doc.get('group'));
      if (emptyGroups.has(name)) continue;
      const list = doc.get('task');
      if (!isSeq(list)) continue;
      const before = list.items.length;
      list.items = list.items.filter((item) => {
        const member = memberName(item);
        return !dropped.has(member) && !emptyGroups.has(member);
      });
      if (list.items.length !== before) changed = true;
      if (list.items.length === 0) {
        emptyGroups.add(name);
        changed = true;
      }
    }
  }
  const keptGroups = groupYamls.filter(({ doc }) => !emptyGroups.has(String(doc.get('group'))));
  for (const { file, doc } of keptGroups) out.set(file, doc.toString());
  const taskFiles = new Map<string, string>();
  for (const [task, { file }] of taskYamls)
    if (!dropped.has(task)) {
      out.set(file, input.files.get(file)!);
      taskFiles.set(task, file);
    }
  const listed = new Set(keptGroups.flatMap(({ doc }) => members(doc)));
  const topGroupFiles = keptGroups.filter(({ doc }) => !listed.has(String(doc.get('group')))).map(({ file }) => file).sort();
  // Everything else (utils.py, include templates, few-shot data) is copied unchanged.
  const configFiles = new Set([...[...taskYamls.values()].map((t) => t.file), ...groupYamls.map((g) => g.file)]);
  for (const [file, text] of input.files) {
    if (out.has(file) || file === MANIFEST || dataFiles.has(file) || configFiles.has(file)) continue;
    out.set(file, text);
  }
  const manifest = input.files.has(MANIFEST) ? JSON.parse(input.files.get(MANIFEST)!) : {};
  out.set(MANIFEST, `${JSON.stringify({ ...manifest, tasks: kept.map((k) => k.task), proxy_of: manifest.suite ?? null, files: undefined }, null, 2)}\n`);
  const missing: string[] = [];
  for (const [task, ids] of [...input.proxy].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    for (const id of [...ids].sort()) if (!found.get(task)?.has(id)) missing.push(`${task}/${id}`);
  }
  return { files: out, kept, missing, taskFiles, topGroupFiles };
}

function memberName(item: unknown): string {
  return isScalar(item) ? String(item.value) : isMap(item) ? String(item.get('task') ?? item.get('group')) : '';
}

function members(doc: Document): string[] {
  const list = doc.get('task');
  return isSeq(list) ? list.items.map(memberName) : [];
}
