/**
 * ingest: a generated harness log tree of MODELS × TASKS sample files (≥ 1 GB by default,
 * records shaped like real 0.4.13 multiple-choice samples: doc, 4 prompts, resps, hashes).
 * Reference, same invocation: a plain Python loop doing json.loads on every line of the
 * same sample files (no matrix, no checks) — the floor a Python ingester pays.
 *
 * Wall-clock and CPU-time figures are both reported: on a shared machine the CPU ratio is
 * the stable one.
 *
 * Env: INGEST_BENCH_MODELS (200), INGEST_BENCH_TASKS (30), INGEST_BENCH_DOCS (80),
 * INGEST_BENCH_DIR (generate there and keep it; default: a temp folder removed afterwards),
 * INGEST_BENCH_THREADS=1 (read every samples file on the main thread, no worker pool),
 * INGEST_BENCH_ROUNDS (3: each side's fastest of that many alternating rounds is reported).
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileGenerator, report, runPythonReference } from './measure.js';

const MODELS = Number(process.env.INGEST_BENCH_MODELS ?? 200);
const TASKS = Number(process.env.INGEST_BENCH_TASKS ?? 30);
const DOCS = Number(process.env.INGEST_BENCH_DOCS ?? 80);
const ROUNDS = Math.max(1, Number(process.env.INGEST_BENCH_ROUNDS ?? 3));
const TS = '2026-11-29T08-00-00.000001';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const q = (s: string) => JSON.stringify(s);

/** Python-json.dumps-shaped line (", " / ": " separators, floats as 1.0). */
function record(task: number, doc: number, model: number): { line: string; triple: string; acc: number } {
  const question = `Task ${task} doc ${doc}: which command fixes the failing build after the dependency bump? ${'Context line with some repository detail. '.repeat(6)}`;
  const choices = [`pip install -e .`, `pytest -x tests/test_${doc}.py`, `git checkout -- setup.cfg`, `npm ci`];
  const label = (task + doc) % 4;
  const prompt = `Question: ${question}\nAnswer:`;
  const docJson = `{"id": ${doc}, "question": ${q(question)}, "choices": [${choices.map(q).join(', ')}], "label": ${label}}`;
  const args = choices.map((c, i) => `"gen_args_${i}": {"arg_0": ${q(prompt)}, "arg_1": ${q(` ${c}`)}}`).join(', ');
  const lls = choices.map((_, i) => `-${((model * 7919 + doc * 104729 + i * 15485863) % 1000003) / 1000003}`);
  // The harness's own acc: the gold choice has the highest log-likelihood (first maximum).
  const best = lls.reduce((b, ll, i) => (Number(ll) > Number(lls[b]) ? i : b), 0);
  const acc = best === label ? 1 : 0;
  const resps = lls.map((ll) => `[["${ll}", "False"]]`).join(', ');
  const filtered = lls.map((ll) => `["${ll}", "False"]`).join(', ');
  // The harness's doc_hash: sha256 of json.dumps(doc, indent=2) — for this ASCII doc with no
  // floats JS's indent-2 output is byte-identical (ingest recomputes and checks it).
  const docHash = sha(JSON.stringify({ id: doc, question, choices, label }, null, 2));
  const promptHash = sha(prompt);
  const targetHash = sha(String(label));
  const line = `{"doc_id": ${doc}, "doc": ${docJson}, "target": "${label}", "arguments": {${args}}, "resps": [${resps}], "filtered_resps": [${filtered}], "filter": "none", "metrics": ["acc", "acc_norm"], "doc_hash": "${docHash}", "prompt_hash": "${promptHash}", "target_hash": "${targetHash}", "acc": ${acc.toFixed(1)}, "acc_norm": ${(1 - acc).toFixed(1)}}\n`;
  return { line, triple: docHash + promptHash + targetHash, acc };
}

function generate(root: string): void {
  for (let m = 0; m < MODELS; m++) {
    const dir = path.join(root, `org__bench-model-${String(m).padStart(3, '0')}`);
    mkdirSync(dir, { recursive: true });
    const results: Record<string, unknown> = {};
    const taskHashes: Record<string, string> = {};
    const nSamples: Record<string, unknown> = {};
    const configs: Record<string, unknown> = {};
    for (let t = 0; t < TASKS; t++) {
      const task = `bench_task_${String(t).padStart(2, '0')}`;
      const fd = openSync(path.join(dir, `samples_${task}_${TS}.jsonl`), 'w');
      const h = createHash('sha256');
      let sum = 0;
      let buffer = '';
      for (let d = 0; d < DOCS; d++) {
        const { line, triple, acc } = record(t, d, m);
        sum += acc;
        h.update(triple);
        buffer += line;
        if (buffer.length > 1 << 20) {
          writeSync(fd, buffer);
          buffer = '';
        }
      }
      writeSync(fd, buffer);
      closeSync(fd);
      results[task] = { name: task, alias: task, sample_len: DOCS, 'acc,none': sum / DOCS, 'acc_stderr,none': 'N/A', 'acc_norm,none': 1 - sum / DOCS, 'acc_norm_stderr,none': 'N/A' };
      taskHashes[task] = h.digest('hex');
      nSamples[task] = { original: DOCS, effective: DOCS };
      // A built-in multiple-choice task: ingest recomputes every record's acc from its responses.
      configs[task] = { task, output_type: 'multiple_choice', metric_list: [{ metric: 'acc', aggregation: 'mean', higher_is_better: true }, { metric: 'acc_norm', aggregation: 'mean', higher_is_better: true }] };
    }
    const name = `org/bench-model-${String(m).padStart(3, '0')}`;
    writeFileSync(
      path.join(dir, `results_${TS}.json`),
      JSON.stringify({ results, configs, versions: {}, 'n-samples': nSamples, config: { model: 'hf', model_args: { pretrained: name } }, task_hashes: taskHashes, model_name: name, model_name_sanitized: path.basename(dir), lm_eval_version: '0.4.13' }),
    );
  }
}

function sampleBytes(root: string): number {
  let total = 0;
  for (const d of readdirSync(root)) for (const f of readdirSync(path.join(root, d))) if (f.startsWith('samples_')) total += statSync(path.join(root, d, f)).size;
  return total;
}

const PYTHON_LOOP = `
import json, os, sys, time, resource
root = sys.argv[1]
t0 = time.perf_counter(); c0 = time.process_time(); n = 0; size = 0
for d in sorted(os.listdir(root)):
    for f in sorted(os.listdir(os.path.join(root, d))):
        if not f.startswith('samples_'): continue
        with open(os.path.join(root, d, f), 'rb') as fh:
            for line in fh:
                size += len(line)
                json.loads(line)
                n += 1
s = time.perf_counter() - t0
cpu = time.process_time() - c0
print(json.dumps({'seconds': s, 'cpu_seconds': cpu, 'records': n, 'mb_per_s': size / 1e6 / s, 'cpu_mb_per_s': size / 1e6 / cpu, 'peak_rss_mib': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
`;

/** One timed ingest of `root` in a child process (timed from loaded code, as the Python loop is); prints its figures as JSON. */
const INGEST_ROUND = `
const [out, root, threads] = process.argv.slice(2);
const load = (p) => import(require('node:url').pathToFileURL(require('node:path').join(out, p)).href);
const [{ nodeVfs }, { ingestLogs }, { startSamplePool }] = await Promise.all(['generator/core/kernel/node-vfs.js', 'generator/core/logs/index.js', 'generator/cli/ingest/sample-pool.js'].map(load));
const pool = threads === '1' ? undefined : startSamplePool();
await pool?.ready;
const cpu0 = process.cpuUsage();
const t0 = process.hrtime.bigint();
const result = await ingestLogs(nodeVfs, [root], { readSamples: pool?.read });
const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
const cpu = process.cpuUsage(cpu0);
await pool?.close();
console.log(JSON.stringify({
  seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6, peakRssMiB: process.resourceUsage().maxRSS / 1024, threads: pool ? 'workers' : 'main',
  models: result.matrix.models.length, instances: result.matrix.instances.length, records: result.tally.read,
  unexpected: [...new Set(result.findings.filter((f) => f.severity !== 'info').map((f) => f.code))],
}));
`;

function runIngestRound(out: string, root: string): { seconds: number; cpuSeconds: number; peakRssMiB: number; threads: string; models: number; instances: number; records: number; unexpected: string[] } {
  // A script file, not `node -e`: worker threads inherit the parent's exec arguments, and rounds
  // run under `-e` measured about 80 MB larger and slower than the same script from a file.
  const script = path.join(out, 'bench-ingest-round.cjs');
  writeFileSync(script, `(async () => {${INGEST_ROUND}})().catch((e) => { console.error(e); process.exit(1); });\n`);
  const res = spawnSync(process.execPath, [script, out, root, process.env.INGEST_BENCH_THREADS ?? ''], { encoding: 'utf8', maxBuffer: 1 << 26 });
  if (res.status !== 0) throw new Error(`ingest round failed: ${res.stderr}`);
  const lines = res.stdout.trim().split('\n');
  return JSON.parse(lines[lines.length - 1]!);
}

if (process.argv.includes('--generate')) {
  generate(process.argv[process.argv.indexOf('--generate') + 1]!);
} else {
  const keep = process.env.INGEST_BENCH_DIR;
  const root = keep ?? path.join(mkdtempSync(path.join(tmpdir(), 'aptpace-bench-ingest-')), 'out');
  try {
    if (!existsSync(path.join(root, `org__bench-model-${String(MODELS - 1).padStart(3, '0')}`))) {
      // Generated in a child process so this process's peak RSS is the ingest's alone.
      const gen = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--generate', root], { stdio: 'inherit' });
      if (gen.status !== 0) throw new Error('log generation failed');
    }
    const bytes = sampleBytes(root);
    const out = compileGenerator('bench-ingest-build');
    // Both sides run ROUNDS times, alternately, and each keeps its fastest round: on a shared
    // machine a burst of load then slows one round, not one side.
    let py: Record<string, number> | undefined;
    let best: ReturnType<typeof runIngestRound> | undefined;
    let peak = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const p = runPythonReference(PYTHON_LOOP, [root]);
      if (!py || p.seconds! < py.seconds!) py = p;
      // As `aptpace ingest` runs it: samples files parsed and hashed on worker threads (a fresh
      // process per round, so no round starts with another's cache).
      const r = runIngestRound(out, root);
      peak = Math.max(peak, r.peakRssMiB);
      if (!best || r.seconds < best.seconds) best = r;
    }
    const { seconds, cpuSeconds } = best!;
    if (best!.unexpected.length) console.log(`unexpected findings: ${best!.unexpected.join(', ')}`);
    const mbps = bytes / 1e6 / seconds;
    report('ingest', {
      input_mb: bytes / 1e6,
      threads: best!.threads,
      rounds: ROUNDS,
      models: best!.models,
      instances: best!.instances,
      records: best!.records,
      seconds,
      mb_per_s: mbps,
      cpu_seconds: cpuSeconds,
      cpu_mb_per_s: bytes / 1e6 / cpuSeconds,
      peak_rss_mib: peak,
      python_json_loads_seconds: py!.seconds!,
      python_mb_per_s: py!.mb_per_s!,
      python_cpu_mb_per_s: py!.cpu_mb_per_s!,
      python_peak_rss_mib: py!.peak_rss_mib!,
      speedup_vs_python: mbps / py!.mb_per_s!,
      cpu_speedup_vs_python: bytes / 1e6 / cpuSeconds / py!.cpu_mb_per_s!,
      rss_over_input: peak / (bytes / 1048576),
    });
  } finally {
    if (!keep) rmSync(path.dirname(root), { recursive: true, force: true });
  }
}
