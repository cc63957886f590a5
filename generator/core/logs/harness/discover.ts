import * as path from 'node:path';
import type { Vfs } from '../../kernel/vfs.js';
import type { FindingSink } from '../sink.js';
import { walkFiles } from '../walk.js';

/** The harness's timestamp: `datetime.now().isoformat().replace(":", "-")`; microseconds are omitted when 0. */
export const TIMESTAMP = String.raw`\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d(?:\.\d+)?`;
/** Anchored at both ends, so `samples_demo_mc_<ts>` never claims `samples_demo_mc_mi_<ts>`. */
export const SAMPLES_FILE = new RegExp(`^samples_(.+)_(${TIMESTAMP})\\.jsonl$`);
/** `results_<ts>.json`, or `<stem>_<ts>.json` when `--output_path` named a .json file (≥0.4.9). */
export const RESULTS_FILE = new RegExp(`^(.+)_(${TIMESTAMP})\\.json$`);

export interface RunFiles {
  /** Folder holding the run's files. */
  dir: string;
  /** Root the run was found under (for provenance and `--run` messages). */
  root: string;
  /** Shared timestamp, or '' for ≤0.4.2 nameless `results.json`. */
  ts: string;
  resultsFile: string;
  /** task → samples file (JSONL, or a JSON array for ≤0.4.2). */
  samples: Map<string, string>;
  /** ≤0.4.2: samples are pretty-printed JSON arrays named `<model_args>_<task>.jsonl`. */
  legacyArrays: boolean;
  /** Candidate legacy sample files in the folder, matched to tasks once the results are read. */
  legacyCandidates: string[];
}

export interface Discovery {
  runs: RunFiles[];
  /** Sample files with no results file of the same timestamp beside them. */
  orphans: Array<{ file: string; task: string; ts: string }>;
  /** JSON files that matched the name pattern but are not results files are decided later; count of other files ignored. */
  ignored: number;
}

/**
 * Finds every run under the roots: a results file plus the sample files sharing its
 * timestamp in the same folder. Handles `<out>/<model>/results_<ts>.json`, the `.json`
 * output-path form (`<out>/<stem>_<ts>.json`), nameless pre-0.4.10 folders (files straight in
 * `<out>`), and ≤0.4.2 `results.json` with JSON-array sample files.
 */
export async function discoverRuns(vfs: Vfs, roots: string[], sink: FindingSink): Promise<Discovery> {
  const runs: RunFiles[] = [];
  const orphans: Discovery['orphans'] = [];
  let ignored = 0;
  for (const root of roots) {
    const st = await vfs.stat(root);
    if (!st) {
      sink.add('input-missing', { file: root }, { input: root });
      continue;
    }
    const files = st.isDirectory ? await walkFiles(vfs, root, undefined, sink) : [root];
    const byDir = new Map<string, string[]>();
    for (const f of files) {
      const d = path.dirname(f);
      if (!byDir.has(d)) byDir.set(d, []);
      byDir.get(d)!.push(path.basename(f));
    }
    let found = 0;
    for (const dir of [...byDir.keys()].sort()) {
      const names = byDir.get(dir)!.sort();
      const resultsByTs = new Map<string, string>();
      const samplesByTs = new Map<string, Map<string, string>>();
      const otherJsonl: string[] = [];
      let legacyResults: string | undefined;
      for (const name of names) {
        const s = SAMPLES_FILE.exec(name);
        if (s) {
          const [, task, ts] = s as unknown as [string, string, string];
          if (!samplesByTs.has(ts)) samplesByTs.set(ts, new Map());
          samplesByTs.get(ts)!.set(task, path.join(dir, name));
          continue;
        }
        const r = RESULTS_FILE.exec(name);
        if (r) {
          const ts = r[2]!;
          // Two result files with one timestamp in one folder cannot both be the run's; keep `results_` first.
          const prior = resultsByTs.get(ts);
          if (!prior || (name.startsWith('results_') && !path.basename(prior).startsWith('results_'))) resultsByTs.set(ts, path.join(dir, name));
          continue;
        }
        if (name === 'results.json') legacyResults = path.join(dir, name);
        else if (name.endsWith('.jsonl')) otherJsonl.push(path.join(dir, name));
        else ignored++;
      }
      for (const [ts, resultsFile] of resultsByTs) {
        runs.push({ dir, root, ts, resultsFile, samples: samplesByTs.get(ts) ?? new Map(), legacyArrays: false, legacyCandidates: [] });
        found++;
      }
      for (const [ts, samples] of samplesByTs) {
        if (resultsByTs.has(ts)) continue;
        for (const [task, file] of samples) orphans.push({ file, task, ts });
      }
      if (legacyResults) {
        runs.push({ dir, root, ts: '', resultsFile: legacyResults, samples: new Map(), legacyArrays: true, legacyCandidates: otherJsonl });
        found++;
      } else ignored += otherJsonl.length;
    }
    if (found === 0 && !orphans.some((o) => o.file.startsWith(root))) {
      sink.add('input-unrecognised', { file: root }, { input: root, reason: 'no lm-evaluation-harness results or sample files below it' });
    }
  }
  runs.sort((a, b) => (a.resultsFile < b.resultsFile ? -1 : a.resultsFile > b.resultsFile ? 1 : 0));
  return { runs, orphans, ignored };
}
