import { spawnSync } from 'node:child_process';
import { cpSync } from 'node:fs';
import * as path from 'node:path';
import type { Finding } from '../../generator/core/kernel/findings.js';
import type { ScoreMatrix } from '../../generator/core/logs/matrix.js';
import { python } from '../helpers/env.js';
import { tempDir } from '../helpers/tmp.js';

export const codes = (findings: readonly Finding[]) => findings.map((f) => f.code);
export const countCode = (findings: readonly Finding[], code: string) => findings.filter((f) => f.code === code).length;

/** A private copy of a fixture tree (tests corrupt copies, never the fixture). */
export function copyTree(from: string, name = 'tree'): string {
  const dir = path.join(tempDir('aptpace-logs-'), name);
  cpSync(from, dir, { recursive: true });
  return dir;
}

/** model → instance key → value, observed cells only. */
export function cellsOf(m: ScoreMatrix): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {};
  const width = m.instances.length;
  m.models.forEach((model, i) => {
    const row: Record<string, number> = {};
    m.instances.forEach((inst, j) => {
      if (m.observed[i * width + j]) row[inst.key] = m.values[i * width + j]!;
    });
    out[model.name] = row;
  });
  return out;
}

/** Runs a Python snippet in the project venv and parses the JSON it prints last. */
export function runPython(script: string, args: string[] = []): any {
  const res = spawnSync(python, ['-c', script, ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (res.status !== 0) throw new Error(`python failed: ${res.stderr}`);
  const lines = res.stdout.trim().split('\n');
  return JSON.parse(lines[lines.length - 1]!);
}

/** Independent reader: json.loads every line, newest run per (model, task), the given metric/filter per task. */
export const PYTHON_REFERENCE = `
import json, os, re, sys
root, choice = sys.argv[1], json.loads(sys.argv[2])
ts_re = r'\\d{4}-\\d\\d-\\d\\dT\\d\\d-\\d\\d-\\d\\d(?:\\.\\d+)?'
best = {}
for d in sorted(os.listdir(root)):
    folder = os.path.join(root, d)
    for f in sorted(os.listdir(folder)):
        m = re.match(r'^samples_(.+)_(' + ts_re + r')\\.jsonl$', f)
        if not m: continue
        task, ts = m.groups()
        results = json.load(open(os.path.join(folder, 'results_' + ts + '.json')))
        model = results['model_name']
        if task not in choice: continue
        if (model, task) not in best or best[(model, task)][0] < ts:
            best[(model, task)] = (ts, os.path.join(folder, f))
out = {}
for (model, task), (ts, path) in sorted(best.items()):
    metric, flt = choice[task]
    for line in open(path):
        rec = json.loads(line)
        if rec.get('filter', 'none') != flt: continue
        out.setdefault(model, {})[task + '/' + str(rec['doc_id'])] = float(rec[metric])
print(json.dumps(out))
`;
