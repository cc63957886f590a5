/**
 * Question-build throughput and peak memory on generated trajectories (80% SWE with patches,
 * 10% environment setup, 10% deep research), streamed per kind as the `build` command runs
 * it, default kinds, shots and budgets. Each corpus size (`BENCH_BUILD_SIZES`, default
 * 1,000, 3,000 and 10,000 trajectories) runs in its own process, so peak memory is per size,
 * and a last line compares them: time and questions per trajectory at the largest size over
 * the smallest (1.0 = linear in corpus size). References measured in the same run, at the
 * largest size: a naive Python builder that renders the same number of prompts by string
 * concatenation (APTBench's own approach, no budgets, operators or validation), and
 * tokenizing the built prompts once with cl100k_base.
 */
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { copyFileSync, existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Rng } from '../../generator/core/kernel/rng.js';
import { buildQuestions } from '../../generator/core/questions/build.js';
import { loadTokenCounter } from '../../generator/core/questions/tokenizer.js';
import type { Step, Trajectory } from '../../generator/core/trajectories/types.js';
import { compileGenerator, peakRssMiB, repoRoot, report, runPythonReference, timed } from './measure.js';

const SIZES = (process.env.BENCH_BUILD_SIZES ?? '1000,3000,10000').split(',').map(Number).sort((a, b) => a - b);
const CL100K_SUBSET = Number(process.env.BENCH_BUILD_CL100K ?? 1_000);
const root = path.join('/tmp', `aptpace-bench-build-${process.pid}`);

const rng = new Rng('build-bench');
const words = 'value index count window scale offset buffer record parser config limit cache token stream header'.split(' ');
const modules = ['core', 'io', 'utils', 'parser', 'cli', 'model', 'views', 'format'];
const word = () => rng.pick(words);
const sentence = (n: number) => Array.from({ length: n }, word).join(' ');
const code = (lines: number) => Array.from({ length: lines }, (_, i) => `${String(i + 1).padStart(6)}\t    ${word()}_${word()} = ${word()}(${rng.int(100)}) if ${word()} > ${rng.int(50)} else None`).join('\n');

function step(index: number, thought: string | null, kind: Step['action']['kind'], tool: string, text: string, args: Record<string, unknown>, observation: string | null): Step {
  return { index, thought, plan: null, action: { kind, tool, args, text }, observation };
}

function patchFor(file: string): string {
  const n = 10 + rng.int(200);
  const body = [`     def ${word()}_${word()}(self, ${word()}):`, `         if ${word()} is None:`, `             return ${rng.int(9)}`, `-        if self.${word()} > ${rng.int(99)}:`, `+        if self.${word()} >= ${rng.int(99)}:`, `             self.${word()} += 1`, `         return self.${word()}`];
  return `diff --git a/${file} b/${file}\n--- a/${file}\n+++ b/${file}\n@@ -${n},6 +${n},6 @@ class ${word()}:\n${body.join('\n')}\n`;
}

function swe(i: number): Trajectory {
  const repo = `acme/${rng.pick(modules)}-${i % 200}`;
  const pkg = repo.split('/')[1]!.replace(/-\d+$/, '');
  const files = modules.map((m) => `${pkg}/${m}.py`);
  const target = rng.pick(files);
  const steps: Step[] = [];
  const n = 8 + rng.int(8);
  for (let s = 0; s < n - 1; s++) {
    const thought = `${sentence(10)}.`;
    const r = rng.int(4);
    if (r === 0) { const f = rng.pick(files); steps.push(step(s, thought, 'tool_call', 'str_replace_editor', `str_replace_editor view /testbed/${f}`, { command: 'view', path: `/testbed/${f}` }, code(25))); }
    else if (r === 1) { const w = word(); steps.push(step(s, thought, 'shell', 'bash', `grep -rn "${w}" /testbed/${pkg}`, { command: `grep -rn "${w}" /testbed/${pkg}` }, files.map((f) => `/testbed/${f}:${rng.int(300)}: ${w} = ${word()}`).join('\n'))); }
    else if (r === 2) steps.push(step(s, thought, 'shell', 'bash', 'cd /testbed && python reproduce.py', { command: 'cd /testbed && python reproduce.py' }, `Traceback: ${sentence(12)}`));
    else steps.push(step(s, thought, 'shell', 'bash', `cd /testbed && python -m pytest tests/test_${rng.pick(modules)}.py -q`, { command: 'pytest' }, `${rng.int(20)} passed`));
  }
  steps.push(step(n - 1, 'Submit.', 'finish', 'submit', 'submit', {}, null));
  const patch = patchFor(target);
  return {
    schema_version: 'traj/1', traj_id: `bench:swe-${i}:0`, domain: 'swe',
    source: { framework: 'bench', format: 'canonical-jsonl', path: 'bench.jsonl', line: i + 1, repo, license: 'MIT' },
    task: { instance_id: `swe-${i}`, goal: `${sentence(30)}\n\n${sentence(40)}`, language: 'en', gold_patch: patch, gold_test_patch: i % 2 ? patchFor(`tests/test_${rng.pick(modules)}.py`) : null },
    environment: { repo, workdir: '/testbed', tools: [{ name: 'bash', description: 'Run a command.' }, { name: 'str_replace_editor', description: 'View and edit files.' }] },
    agent: {}, steps, outcome: { submission: patch, success: true, success_source: 'harness_report' }, metrics: {},
  };
}

function env(i: number): Trajectory {
  const cmds = ['git clone https://github.com/acme/x.git', 'cd x', `conda create -n env${i} -y python=3.${8 + rng.int(4)}`, `conda activate env${i}`, 'pip install -r requirements.txt', `pip install ${word()}==${rng.int(5)}.${rng.int(9)}`, 'python -m pytest -q'];
  return {
    schema_version: 'traj/1', traj_id: `bench:env-${i}:0`, domain: 'env_setup',
    source: { framework: 'bench', format: 'canonical-jsonl', path: 'bench.jsonl', line: i + 1, license: 'MIT' },
    task: { instance_id: `env-${i}`, goal: 'Set up the environment.', language: 'en' }, environment: { tools: [{ name: 'bash' }] }, agent: {},
    steps: cmds.map((c, s) => step(s, null, 'shell', 'bash', c, { command: c }, '')), outcome: { success: true, success_source: 'benchmark_construction' }, metrics: {},
  };
}

function dr(i: number): Trajectory {
  const steps: Step[] = Array.from({ length: 3 + rng.int(3) }, (_, s) => {
    const search = rng.int(2) === 0;
    const args = search ? { text: sentence(5) } : { url: `https://example.org/${word()}/${rng.int(999)}`, question: `${sentence(6)}?` };
    return { ...step(s, null, 'tool_call', search ? 'web_search' : 'browse_website', `${search ? 'web_search' : 'browse_website'} ${JSON.stringify(args)}`, args, code(12)), plan: `${sentence(8)}.` };
  });
  return {
    schema_version: 'traj/1', traj_id: `bench:dr-${i}:0`, domain: 'deep_research',
    source: { framework: 'bench', format: 'canonical-jsonl', path: 'bench.jsonl', line: i + 1, license: 'MIT' },
    task: { instance_id: `dr-${i}`, goal: `${sentence(15)}?`, language: 'en', gold_answer: sentence(2) }, environment: { tools: [{ name: 'web_search' }, { name: 'browse_website' }] }, agent: {},
    steps, outcome: { success: true, success_source: 'answer_match' }, metrics: {},
  };
}

try {
  if (process.env.BENCH_BUILD_TRAJECTORIES === undefined) scaling();
  else await measure(Number(process.env.BENCH_BUILD_TRAJECTORIES), process.env.BENCH_BUILD_REFERENCES !== '0');
} finally {
  // The scratch folder goes whichever way the run ends (a size measured without references left it behind).
  rmSync(root, { recursive: true, force: true });
}

/** Runs `measure` once per size, each in a process of its own, and reports how the figures scale. */
function scaling(): void {
  const rows: Array<Record<string, number>> = [];
  // Compiled once for every size's process.
  const compiled = process.env.BENCH_BUILD_LOADER === 'tsx' ? {} : { BENCH_BUILD_COMPILED_DIR: process.env.BENCH_BUILD_COMPILED_DIR ?? compileGeneratorWithTemplates() };
  for (const n of SIZES) {
    const env = { ...process.env, ...compiled, BENCH_BUILD_TRAJECTORIES: String(n), BENCH_BUILD_REFERENCES: n === SIZES[SIZES.length - 1] ? '1' : '0' };
    const res = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url)], { env, encoding: 'utf8', maxBuffer: 1 << 26 });
    process.stdout.write(res.stdout);
    process.stderr.write(res.stderr);
    const line = res.stdout.split('\n').find((l) => l.startsWith('BENCH build:'));
    if (res.status !== 0 || !line) throw new Error(`build bench at ${n} trajectories failed (${res.status})`);
    rows.push(Object.fromEntries(line.slice('BENCH build:'.length).trim().split(/\s+/).map((kv) => kv.split('=')).map(([k, v]) => [k!, Number(v)])));
  }
  const [small, large] = [rows[0]!, rows[rows.length - 1]!];
  report('build-scaling', {
    sizes: SIZES.join('/'),
    questions_per_s: rows.map((r) => Math.round(r.questions_per_s_chars!)).join('/'),
    peak_rss_mib: rows.map((r) => Math.round(r.peak_rss_mib_after_chars!)).join('/'),
    seconds_per_trajectory_large_over_small: large.seconds_chars! / large.trajectories! / (small.seconds_chars! / small.trajectories!),
    questions_per_trajectory_large_over_small: large.questions! / large.trajectories! / (small.questions! / small.trajectories!),
  });
}

async function measure(N: number, references: boolean): Promise<void> {
  const trajectories = Array.from({ length: N }, (_, i) => (i % 10 === 8 ? env(i) : i % 10 === 9 ? dr(i) : swe(i)));

  // BENCH_BUILD_HASH=1 prints a sha256 of every built question, in order: the same build gives the same digest.
  const measured = timedBuild(trajectories);
  const { built, promptChars, cpuSeconds } = measured;
  const chars = { seconds: measured.seconds };
  if (measured.digest) console.log(`BENCH build-digest: trajectories=${N}  sha256=${measured.digest}`);
  const questions = { length: built };
  const rssAfterChars = measured.peakRssMiB;

  if (!references) {
    report('build', { trajectories: N, questions: questions.length, seconds_chars: chars.seconds, cpu_seconds_chars: cpuSeconds, questions_per_cpu_s_chars: questions.length / cpuSeconds, load_average_1m: loadavg()[0]!, questions_per_s_chars: questions.length / chars.seconds, prompt_mb: promptChars / 1e6, peak_rss_mib_after_chars: rssAfterChars, loader: measured.loader });
    return;
  }

  const subset = trajectories.slice(0, CL100K_SUBSET);
  const cl = await timed(() => buildQuestions(subset, { tokenizer: 'cl100k_base', seed: 'bench' }));

  const counter = await loadTokenCounter('cl100k_base');
  const clPrompts = cl.result.questions.map((q) => q.prompt);
  const tokenizeOnly = await timed(() => clPrompts.reduce((a, p) => a + counter.count(p), 0));

  // Naive reference: the same trajectories, one prompt per question built by string joins.
  mkdirSync(root, { recursive: true });
  const input = path.join(root, 'trajectories.jsonl');
  writeFileSync(input, trajectories.map((t) => JSON.stringify(t)).join('\n'));
  // BENCH_BUILD_KEEP_INPUT=FILE keeps the generated trajectories, to time the `build` command itself on them.
  if (process.env.BENCH_BUILD_KEEP_INPUT) copyFileSync(input, process.env.BENCH_BUILD_KEEP_INPUT);
  const python = runPythonReference(
    `
import json, random, sys, time
rows = [json.loads(l) for l in open(sys.argv[1])]
target = int(sys.argv[2])
random.seed(0)
start = time.perf_counter()
made = 0
while made < target:
    for t in rows:
        steps = t["steps"]
        for i in range(1, min(len(steps), 4)):
            prefix = "\\n".join("Step %d: %s\\nObservation: %s" % (s["index"] + 1, s["action"]["text"], s["observation"] or "") for s in steps[:i])
            choices = random.sample([s["action"]["text"] for s in steps], min(4, len(steps)))
            prompt = "Request: next step.\\nProblem: %s\\nTrajectory:\\n%s\\nChoices:\\n%s\\nThe correct next step is (" % (t["task"]["goal"], prefix, "\\n".join("(%s) %s" % (chr(65 + k), c) for k, c in enumerate(choices)))
            made += 1
            if made >= target: break
        if made >= target: break
print(json.dumps({"seconds": time.perf_counter() - start, "questions": made}))
`,
    [input, String(questions.length)],
  );

  report('build', {
    trajectories: N,
    questions: questions.length,
    seconds_chars: chars.seconds,
    cpu_seconds_chars: cpuSeconds,
    questions_per_cpu_s_chars: questions.length / cpuSeconds,
    load_average_1m: loadavg()[0]!,
    questions_per_s_chars: questions.length / chars.seconds,
    prompt_mb: promptChars / 1e6,
    peak_rss_mib_after_chars: rssAfterChars,
    loader: measured.loader,
    cl100k_trajectories: subset.length,
    cl100k_questions: cl.result.questions.length,
    questions_per_s_cl100k: cl.result.questions.length / cl.seconds,
    tokenize_only_share_of_cl100k_build: tokenizeOnly.seconds / cl.seconds,
    python_naive_questions_per_s: python.questions! / python.seconds!,
    ratio_vs_python_naive: questions.length / chars.seconds / (python.questions! / python.seconds!),
    peak_rss_mib: peakRssMiB(),
  });
}

interface TimedBuild {
  built: number;
  promptChars: number;
  seconds: number;
  cpuSeconds: number;
  peakRssMiB: number;
  digest: string | null;
  loader: 'compiled' | 'tsx';
}

/**
 * The timed build (build-round.mjs) in a plain `node` process of its own that reads the generated
 * corpus from a file, so the peak memory is the build's (and its corpus's) alone. By default it
 * runs as the installed `aptpace build` does, on the compiled generator (`compileGenerator`),
 * whose folder links the repository's templates/ beside its generator/, where the build looks
 * for its shipped templates, so the questions are the same to the byte as the sources build.
 * `BENCH_BUILD_LOADER=tsx` times the TypeScript sources instead, as `npm run aptpace` runs them.
 */
function timedBuild(trajectories: readonly Trajectory[]): TimedBuild {
  const loader = process.env.BENCH_BUILD_LOADER === 'tsx' ? 'tsx' : 'compiled';
  const buildModule =
    loader === 'tsx'
      ? path.join(repoRoot, 'generator', 'core', 'questions', 'build.ts')
      : path.join(process.env.BENCH_BUILD_COMPILED_DIR ?? compileGeneratorWithTemplates(), 'generator', 'core', 'questions', 'build.js');
  mkdirSync(root, { recursive: true });
  const corpus = path.join(root, 'corpus.jsonl');
  writeFileSync(corpus, trajectories.map((t) => `${JSON.stringify(t)}\n`).join(''));
  // BENCH_BUILD_NODE_ARGS: node flags for that process (`--cpu-prof --cpu-prof-dir=DIR` profiles the build and its workers).
  const nodeArgs = [...(loader === 'tsx' ? ['--import', 'tsx'] : []), ...(process.env.BENCH_BUILD_NODE_ARGS ?? '').split(' ').filter(Boolean)];
  const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'build-round.mjs');
  const res = spawnSync(process.execPath, [...nodeArgs, script, buildModule, corpus, process.env.BENCH_BUILD_HASH ? '1' : ''], { encoding: 'utf8', maxBuffer: 1 << 26 });
  rmSync(corpus, { force: true });
  if (res.status !== 0) throw new Error(`timed build failed: ${res.stderr}`);
  const lines = res.stdout.trim().split('\n');
  return { ...JSON.parse(lines[lines.length - 1]!), loader };
}

function compileGeneratorWithTemplates(): string {
  const out = compileGenerator('bench-build');
  const link = path.join(out, 'templates');
  if (!existsSync(link)) symlinkSync(path.join(repoRoot, 'templates'), link);
  return out;
}
