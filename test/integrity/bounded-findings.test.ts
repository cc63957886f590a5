/**
 * A million bad lines must not cost a finding object each: every command that reads records
 * in bulk streams its findings to --findings-file as they come and holds only a bounded number.
 * Each command runs as a child process on an input with 200,000 bad lines, with V8's old
 * generation capped at 48 MiB (holding 200,000 findings needs about twice that, so a command
 * that keeps them all dies of it instead of leaving the answer to when the GC happens to run),
 * and must exit 1 with a peak RSS under 256 MiB, a findings file listing every bad line once,
 * and tallies that count every line.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Finding } from '../../generator/core/kernel/findings.js';
import { cli } from '../helpers/cli.js';
import { fixtures, repoRoot } from '../helpers/env.js';
import { tempDir } from '../helpers/tmp.js';

const BAD = 200_000;
const HEAP_MIB = 48;
const RSS_BOUND_MIB = 256;

const dir = tempDir('aptpace-bounded-');
const bad = Array.from({ length: BAD }, (_, i) => `{"broken": ${i}`).join('\n');
const traj = path.join(dir, 'traj.jsonl');
const questions = path.join(dir, 'questions.jsonl');
const logs = path.join(dir, 'logs');
const QUESTIONS = readFileSync(fixtures('questions', 'balanced-plan.jsonl'), 'utf8').split('\n').filter(Boolean).length;
let samplesBase: { read: number; accepted: number; rejected: number };

beforeAll(async () => {
  const good = readFileSync(fixtures('trajectories', 'good', 'canonical.jsonl'), 'utf8').split('\n').filter(Boolean)[0]!;
  writeFileSync(traj, `${good}\n${bad}\n`);
  writeFileSync(questions, `${readFileSync(fixtures('questions', 'balanced-plan.jsonl'), 'utf8')}${bad}\n`);
  cpSync(fixtures('logs', 'harness-output'), logs, { recursive: true });
  // The tallies of the clean logs: the bad lines must add exactly BAD read and BAD rejected.
  samplesBase = (await cli('ingest', logs, '--out', path.join(dir, 'clean-store'), '--json')).json.data.tallies.samples;
  const model = path.join(logs, 'out', 'model-b');
  const samples = path.join(model, readdirSync(model).find((f) => f.startsWith('samples_aptd_mc_'))!);
  writeFileSync(samples, `${readFileSync(samples, 'utf8')}${bad}\n`);
});

/** Runs `argv` in a child with the heap cap; returns its exit code, peak RSS, --json output and findings file. */
function runBounded(name: string, argv: string[]) {
  const stdout = path.join(dir, `${name}.json`);
  const findingsFile = path.join(dir, `${name}.findings.jsonl`);
  const res = spawnSync(process.execPath, [`--max-old-space-size=${HEAP_MIB}`, '--import', 'tsx', path.join(repoRoot, 'test', 'helpers', 'rss-cli.ts'), stdout, ...argv, '--json', '--findings-file', findingsFile], {
    cwd: repoRoot,
    encoding: 'utf8',
    maxBuffer: 1 << 24,
  });
  const last = res.stdout.trim().split('\n').pop() ?? '';
  const run = last.startsWith('{') ? (JSON.parse(last) as { code: number; maxRssMiB: number }) : { code: res.status ?? -1, maxRssMiB: NaN };
  expect(run.code, `${name}: ${res.stderr.slice(-1500)}`).toBe(1);
  const json = JSON.parse(readFileSync(stdout, 'utf8'));
  const inFile = readFileSync(findingsFile, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Finding);
  return { ...run, json, inFile };
}

/** Every bad line once in the file, no fold there; held in memory: at most 1,000, the rest folded with the right count. */
function expectAllStreamed(r: ReturnType<typeof runBounded>, code: string, file: string) {
  const bulk = r.inFile.filter((f) => f.code === code && f.path.file === file);
  expect(bulk).toHaveLength(BAD);
  expect(new Set(r.inFile.map((f) => JSON.stringify([f.code, f.path, f.args]))).size).toBe(r.inFile.length);
  expect(r.inFile.some((f) => f.code === 'findings-folded')).toBe(false);
  const held = (r.json.findings as Finding[]).filter((f) => f.code === code).length;
  const folded = (r.json.findings as Finding[]).filter((f) => f.code === 'findings-folded' && f.args.code === code);
  expect(held).toBeLessThanOrEqual(1000);
  expect(held + folded.reduce((n, f) => n + Number(f.args.count), 0)).toBe(BAD);
  expect(r.maxRssMiB).toBeLessThan(RSS_BOUND_MIB);
}

describe(`${BAD.toLocaleString('en')} bad lines: findings stream to --findings-file, memory stays bounded, counts stay right`, () => {
  const trajTally = { read: BAD + 1, accepted: 1, rejected: BAD };
  const questionTally = { read: BAD + QUESTIONS, accepted: QUESTIONS, rejected: BAD };

  it('inspect', () => {
    const r = runBounded('inspect', ['inspect', traj]);
    expectAllStreamed(r, 'traj-malformed-json', traj);
    expect(r.json.data.tally).toMatchObject(trajTally);
  });

  it('normalize', () => {
    const r = runBounded('normalize', ['normalize', traj, '--out', path.join(dir, 'normalized.jsonl')]);
    expectAllStreamed(r, 'traj-malformed-json', traj);
    expect(r.json.data.tally).toMatchObject(trajTally);
  });

  it('build', () => {
    const r = runBounded('build', ['build', traj, '--out', path.join(dir, 'built.jsonl'), '--no-audit']);
    expectAllStreamed(r, 'traj-malformed-json', traj);
    expect(r.json.data.trajectories).toMatchObject(trajTally);
  });

  it('audit', () => {
    const r = runBounded('audit', ['audit', questions]);
    expectAllStreamed(r, 'question-invalid-json', questions);
    expect(r.json.data.tally).toMatchObject(questionTally);
  });

  it('review', () => {
    const r = runBounded('review', ['review', questions, '--out', path.join(dir, 'review')]);
    expectAllStreamed(r, 'question-invalid-json', questions);
    expect(r.json.data.tally).toMatchObject(questionTally);
  });

  it('emit', () => {
    const r = runBounded('emit', ['emit', questions, '--out', path.join(dir, 'suite'), '--suite', 'aptpace_bounded', '--keep-going']);
    expectAllStreamed(r, 'question-invalid-json', questions);
    expect(r.json.data.tally).toMatchObject(questionTally);
  });

  it('ingest (samples read on worker threads)', () => {
    const r = runBounded('ingest', ['ingest', logs, '--out', path.join(dir, 'store')]);
    const model = path.join(logs, 'out', 'model-b');
    expectAllStreamed(r, 'samples-bad-json', path.join(model, readdirSync(model).find((f) => f.startsWith('samples_aptd_mc_'))!));
    expect(r.json.data.tallies.samples).toMatchObject({ read: samplesBase.read + BAD, accepted: samplesBase.accepted, rejected: samplesBase.rejected + BAD });
  });
});
