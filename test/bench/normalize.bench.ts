/**
 * Normalize throughput and peak memory on a generated ~200 MB corpus mixing the supported
 * formats (JSONL streams and whole-document .traj files). References, measured in the same run:
 * parsing the same bytes with JSON.parse (per line for JSONL), parsing and re-serialising them
 * (JSON.parse + JSON.stringify, the floor for a converter), and Python's json.loads.
 */
import { mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync, openSync, writeSync, closeSync } from 'node:fs';
import * as path from 'node:path';
import { runCli } from '../../generator/cli/main.js';
import { Rng } from '../../generator/core/kernel/rng.js';
import { peakRssMiB, report, runPythonReference, timed } from './measure.js';

const TARGET_MB = Number(process.env.BENCH_NORMALIZE_MB ?? 200);
const root = path.join('/tmp', `aptpace-bench-normalize-${process.pid}`);
const corpus = path.join(root, 'corpus');
const out = path.join(root, 'out.jsonl');

const rng = new Rng('normalize-bench');
const words = 'the a file test error line function value return import class def self path module fix bug issue run check output'.split(' ');
const sentence = (n: number) => Array.from({ length: n }, () => rng.pick(words)).join(' ');
const block = (lines: number) => Array.from({ length: lines }, (_, i) => `${i + 1}: ${sentence(8)}`).join('\n');

function deepResearchRow(i: number): string {
  const steps = Array.from({ length: 2 + rng.int(4) }, () => ({
    planning: `${sentence(12)}.`,
    execution: { name: rng.pick(['web_search', 'browse_website']), args: { text: sentence(6) } },
    observation: block(30),
  }));
  return JSON.stringify({ uuid: `dr-${i}`, traj_id: i, source: 'ids_deepseek_ddg', query: `${sentence(10)}?`, query_answer: sentence(3), question_instruct: 'answer', traj_len: steps.length, trajectory: JSON.stringify(steps), answer: sentence(2) });
}

function openhandsRow(i: number): string {
  const history: unknown[] = [{ id: 0, source: 'user', action: 'message', args: { content: `<issue_description>\n${block(10)}\n</issue_description>` } }];
  let id = 1;
  for (let s = 0; s < 15 + rng.int(20); s++) {
    const a = id++;
    history.push({ id: a, source: 'agent', action: 'run', args: { command: `grep -rn "${rng.pick(words)}" src/ | head -${5 + rng.int(20)}`, thought: `${sentence(15)}.` } });
    history.push({ id: id++, source: 'agent', observation: 'run', cause: a, content: block(40), extras: { metadata: { exit_code: rng.int(2) } }, success: true });
  }
  history.push({ id: id++, source: 'agent', action: 'finish', args: { final_thought: sentence(10), task_completed: 'true' } });
  return JSON.stringify({ instance_id: `acme__repo-${i}`, instruction: 'fix', instance: { repo: 'acme/repo', problem_statement: block(10) }, metadata: { agent_class: 'CodeActAgent', llm_config: { model: 'bench' } }, history, metrics: {}, test_result: { git_patch: block(20) } });
}

function chatRow(i: number): string {
  const messages: unknown[] = [{ role: 'system', content: sentence(40) }, { role: 'user', content: block(8) }];
  for (let s = 0; s < 10 + rng.int(15); s++) {
    messages.push({ role: 'assistant', content: `${sentence(12)}.`, tool_calls: [{ id: `c${s}`, type: 'function', function: { name: 'execute_bash', arguments: JSON.stringify({ command: `cat src/${rng.pick(words)}.py` }) } }] });
    messages.push({ role: 'tool', tool_call_id: `c${s}`, content: block(35) });
  }
  return JSON.stringify({ instance_id: `acme__chat-${i}`, resolved: rng.int(2) === 1, messages });
}

function sweAgentDoc(i: number): string {
  const trajectory = Array.from({ length: 40 + rng.int(40) }, () => ({
    action: rng.int(3) === 0 ? `open src/${rng.pick(words)}.py ${rng.int(300)}\n` : `python -m pytest -q tests/test_${rng.pick(words)}.py\n`,
    observation: block(60),
    thought: `${sentence(20)}.`,
    response: sentence(20),
    state: '{"open_file": "n/a", "working_dir": "/repo"}',
  }));
  return JSON.stringify({ environment: 'swe_main', trajectory, history: [{ role: 'system', content: 'COMMANDS:\nopen:\n  docstring: opens\n  signature: open <path> [<line_number>]\n  arguments:\n    - path (string) [required]: p\n' }, { role: 'user', content: `ISSUE:\n${block(5)}\n\nINSTRUCTIONS:\nfix` }], info: { exit_status: 'submitted', submission: block(10), model_stats: { instance_cost: 1, tokens_sent: 10, tokens_received: 1, api_calls: trajectory.length } } });
}

function writeJsonl(file: string, bytesTarget: number, make: (i: number) => string): void {
  const fd = openSync(file, 'w');
  let written = 0;
  for (let i = 0; written < bytesTarget; i++) {
    const line = `${make(i)}\n`;
    writeSync(fd, line);
    written += Buffer.byteLength(line);
  }
  closeSync(fd);
}

function generate(): void {
  rmSync(root, { recursive: true, force: true });
  mkdirSync(path.join(corpus, 'swe-agent'), { recursive: true });
  const mb = 1024 * 1024;
  const quarter = (TARGET_MB * mb) / 4;
  writeJsonl(path.join(corpus, 'deep-research.jsonl'), quarter, deepResearchRow);
  writeJsonl(path.join(corpus, 'openhands-output.jsonl'), quarter, openhandsRow);
  writeJsonl(path.join(corpus, 'chat.jsonl'), quarter, chatRow);
  let written = 0;
  for (let i = 0; written < quarter; i++) {
    const doc = sweAgentDoc(i);
    writeFileSync(path.join(corpus, 'swe-agent', `acme__repo-${i}.traj`), doc);
    written += Buffer.byteLength(doc);
  }
}

function corpusFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? corpusFiles(path.join(dir, e.name)) : [path.join(dir, e.name)]))
    .sort();
}

async function main() {
  generate();
  const files = corpusFiles(corpus);
  const bytes = files.reduce((n, f) => n + statSync(f).size, 0);
  const mib = bytes / (1024 * 1024);
  console.log(`corpus: ${files.length} files, ${mib.toFixed(1)} MiB in ${corpus}`);

  // Normalize first, so its peak RSS is not inflated by the reference.
  let code = -1;
  const run = await timed(async () => {
    code = await runCli(['normalize', corpus, '--out', out, '--force', '--quiet'], { stdout: () => {}, stderr: (s) => process.stderr.write(s) });
  });
  const normalizePeak = peakRssMiB();
  if (code !== 0) throw new Error(`normalize exited ${code}`);
  const outMiB = statSync(out).size / (1024 * 1024);

  const parse = await timed(() => {
    let values = 0;
    for (const f of files) {
      const text = readFileSync(f, 'utf8');
      if (f.endsWith('.jsonl')) {
        for (const line of text.split('\n')) {
          if (!line) continue;
          JSON.parse(line);
          values++;
        }
      } else {
        JSON.parse(text);
        values++;
      }
    }
    return values;
  });
  // The floor for any converter in JS: parse every record and serialise it again.
  const roundTrip = await timed(() => {
    let chars = 0;
    for (const f of files) {
      const text = readFileSync(f, 'utf8');
      const values = f.endsWith('.jsonl') ? text.split('\n').filter(Boolean) : [text];
      for (const v of values) chars += JSON.stringify(JSON.parse(v)).length;
    }
    return chars;
  });
  const py = runPythonReference(
    `import json, sys, time, os
files = sys.argv[1:]
t = time.perf_counter()
for f in files:
    with open(f, encoding='utf-8') as h:
        if f.endswith('.jsonl'):
            for line in h:
                if line.strip(): json.loads(line)
        else:
            json.load(h)
print(json.dumps({"seconds": time.perf_counter() - t}))`,
    files,
  );

  report('normalize', {
    corpus_mib: mib,
    files: files.length,
    normalize_s: run.seconds,
    normalize_mib_per_s: mib / run.seconds,
    peak_rss_mib: normalizePeak,
    out_mib: outMiB,
    json_parse_s: parse.seconds,
    json_parse_mib_per_s: mib / parse.seconds,
    json_roundtrip_s: roundTrip.seconds,
    json_roundtrip_mib_per_s: mib / roundTrip.seconds,
    python_json_s: py.seconds!,
    python_json_mib_per_s: mib / py.seconds!,
    ratio_vs_json_parse: run.seconds / parse.seconds,
    ratio_vs_json_roundtrip: run.seconds / roundTrip.seconds,
    ratio_vs_python_json: run.seconds / py.seconds!,
  });
  if (!process.env.BENCH_KEEP) rmSync(root, { recursive: true, force: true });
}

await main();
