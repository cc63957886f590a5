// One timed build for build.bench.ts, in a process of its own so that its peak memory is the
// build's (and its corpus's) alone: `node [flags] build-round.mjs BUILD_MODULE CORPUS [HASH]`.
// BUILD_MODULE is the compiled generator's questions/build.js, as the installed CLI runs it, or
// the sources' build.ts under `--import tsx`. Prints one JSON line of figures; with HASH, a
// sha256 of every built question in order.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const [buildModule, corpus, hash] = process.argv.slice(2);
const { buildQuestions } = await import(pathToFileURL(buildModule).href);
const trajectories = readFileSync(corpus, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line));
let built = 0;
let promptChars = 0;
const digest = hash ? createHash('sha256') : null;
const cpu0 = process.cpuUsage();
const t0 = process.hrtime.bigint();
// As the `build` command runs it: each kind's questions are handed over (there: audited and
// written) and let go, so the build holds one kind's questions at a time, never the whole set.
const result = await buildQuestions(trajectories, {
  tokenizer: 'chars',
  seed: 'bench',
  onQuestions: (batch) => {
    built += batch.length;
    for (const q of batch) promptChars += q.prompt.length;
    if (digest) for (const q of batch) digest.update(`${JSON.stringify(q)}\n`);
  },
});
const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
const cpu = process.cpuUsage(cpu0);
const errors = result.findings.filter((f) => f.severity === 'error').map((f) => f.code);
if (built === 0 || errors.length) throw new Error(`the build made ${built} questions; errors: ${errors.join(', ')}`);
console.log(JSON.stringify({ built, promptChars, seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6, peakRssMiB: process.resourceUsage().maxRSS / 1024, digest: digest ? digest.digest('hex') : null }));
