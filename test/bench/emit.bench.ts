/**
 * emit: compile N synthetic questions (APTBench-sized prompts) into a suite on disk.
 * Reference, same invocation: Python turning the same question JSONL into the same kind of
 * data rows (json.loads → dict → json.dumps per line), i.e. the floor any emitter pays.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { nodeVfs } from '../../generator/core/kernel/node-vfs.js';
import { emitSuite } from '../../generator/core/emit/suite.js';
import type { Question } from '../../generator/core/questions/types.js';
import { peakRssMiB, report, runPythonReference, timed } from './measure.js';

const N = Number(process.env.EMIT_BENCH_N ?? 20000);
const PROMPT_CHARS = 6000;

function synthetic(i: number): Question {
  const filler = `Step ${i}: {"planning": "search", "execution": {"name": "web_search", "args": {"query": "q${i}"}}}\nObservation: ${'lorem ipsum dolor sit amet '.repeat(8)}\n`;
  const prompt = filler.repeat(Math.ceil(PROMPT_CHARS / filler.length)).slice(0, PROMPT_CHARS);
  const base = {
    schema_version: 'question/1' as const,
    id: `q${String(i).padStart(7, '0')}`,
    prompt_tokens: PROMPT_CHARS / 4,
    length_bucket: '<=4K' as const,
    truncated: false,
    provenance: { traj_id: `t${i % 500}`, source_path: 'bench', step: i % 30, framework: 'bench' },
    build: { seed: 'bench', template: 'bench' },
  };
  return i % 3 === 2
    ? { ...base, kind: 'next_action_tc', task: `aptpace_bench_action_${i % 4}`, format: 'completion', prompt: `${prompt}The next command:\n`, answer_stem: '```bash\n', targets: [`cd /testbed && python run_${i}.py`], metric: 'exact_match', stop: ['\n'] }
    : { ...base, kind: 'plan_mcq', task: `aptpace_bench_plan_${i % 4}`, format: 'mcq', prompt: `${prompt}Choices:\n(A) a\n(B) b\n(C) c\n(D) d\n`, answer_stem: 'The answer is (', choices: [`open file ${i}`, `run test ${i}`, `edit module ${i}`, 'submit'], gold: i % 4 };
}

const dir = mkdtempSync(path.join(tmpdir(), 'aptpace-bench-emit-'));
try {
  const questions = Array.from({ length: N }, (_, i) => synthetic(i));
  const input = path.join(dir, 'questions.jsonl');
  writeFileSync(input, questions.map((q) => JSON.stringify(q)).join('\n') + '\n');
  const rssBefore = peakRssMiB();
  const { result, seconds } = await timed(() => emitSuite(nodeVfs, questions, { suite: 'aptpace_bench', outDir: path.join(dir, 'suite') }));
  if (result.files.length === 0) throw new Error(JSON.stringify(result.findings.slice(0, 3)));
  const bytes = result.files.reduce((s, f) => s + f.bytes, 0);
  const reference = runPythonReference(
    `import json, sys, time
t = time.perf_counter()
with open(sys.argv[1]) as src, open(sys.argv[2], "w") as dst:
    for line in src:
        q = json.loads(line)
        row = {"id": q["id"], "query": q["prompt"] + q["answer_stem"], "kind": q["kind"], "traj_id": q["provenance"]["traj_id"]}
        if q["format"] == "mcq":
            row["choices"] = ["ABCD"[i] for i in range(len(q["choices"]))]; row["gold"] = q["gold"]
        else:
            row["targets"] = q["targets"]
        dst.write(json.dumps(row, separators=(",", ":")) + "\\n")
print(json.dumps({"seconds": time.perf_counter() - t}))`,
    [input, path.join(dir, 'reference.jsonl')],
  );
  report('emit', {
    questions: N,
    tasks: result.tasks.length,
    suite_MiB: bytes / 2 ** 20,
    seconds,
    questions_per_s: N / seconds,
    python_rows_seconds: reference.seconds!,
    ratio_vs_python: seconds / reference.seconds!,
    peak_rss_MiB: peakRssMiB(),
    rss_before_MiB: rssBefore,
  });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
