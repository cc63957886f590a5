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

/**
 * Re-hashes a samples file the way lm-eval 0.4.13 does (evaluator.py / evaluation_tracker.py,
 * in Python, independent of our reader) and writes its task hash into the results file: a
 * consistently re-made run whose content was changed on purpose, not a tampered one.
 */
export function rehashRun(resultsFile: string, samplesFile: string, task: string): void {
  runPython(
    `
import hashlib, json, sys
res_path, samples_path, task = sys.argv[1:4]
h = lambda s: hashlib.sha256(s.encode('utf-8')).hexdigest()
recs = [json.loads(l) for l in open(samples_path, encoding='utf-8') if l.strip()]
for r in recs:
    r['doc_hash'] = h(json.dumps(r['doc'], indent=2, ensure_ascii=False))
    r['prompt_hash'] = h(r['arguments']['gen_args_0']['arg_0'])
    r['target_hash'] = h(str(r['target']))
with open(samples_path, 'w', encoding='utf-8') as f:
    for r in recs: f.write(json.dumps(r, ensure_ascii=False) + '\\n')
res = json.load(open(res_path))
res['task_hashes'][task] = h(''.join(r['doc_hash'] + r['prompt_hash'] + r['target_hash'] for r in recs))
json.dump(res, open(res_path, 'w'), indent=2)
print(json.dumps(res['task_hashes'][task]))
`,
    [resultsFile, samplesFile, task],
  );
}
