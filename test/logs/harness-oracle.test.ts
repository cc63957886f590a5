import { mkdirSync } from 'node:fs';
import * as path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { fixtures, hasPython, python, repoRoot } from '../helpers/env.js';
import { tempDir } from '../helpers/tmp.js';
import { nodeVfs } from '../../generator/core/kernel/node-vfs.js';
import { ingestLogs } from '../../generator/core/logs/index.js';
import { parsePythonStringList } from '../../generator/core/logs/harness/python-repr.js';
import { recomputeMetric } from '../../generator/core/logs/harness/record-check.js';
import { run, runHarnessTests } from '../emit/support.js';

/**
 * Models that answer: the real lm_eval runs an oracle (every document's gold) and an
 * anti-oracle (never the gold) on the committed suite and on a suite with every kind the
 * builder makes; ingest must keep every record, score the oracle 1 and the anti-oracle 0 on
 * every right/wrong metric. `--model dummy` never answers right, so only this shows whether
 * a correct answer survives ingest's own re-scoring.
 */
const LADDER = path.join(repoRoot, 'test', 'models', 'ladder_model.py');
const RIGHT_WRONG = /^(acc|exact_match|set_match|tool_call_match)(,|$)/;

describe.skipIf(!runHarnessTests)('oracle and anti-oracle models through the real harness and ingest', () => {
  const dir = tempDir('aptpace-oracle-');
  const suites = [
    { name: 'aptpace_fixtures', include: path.join(repoRoot, 'dist-tasks', 'aptpace_fixtures') },
    { name: 'aptpace_allkinds', include: path.join(dir, 'allkinds') },
  ];
  const ingested = new Map<string, Awaited<ReturnType<typeof ingestLogs>>>();

  beforeAll(async () => {
    const questions = path.join(dir, 'q.jsonl');
    const built = await cli('--quiet', 'build', fixtures('canonical'), fixtures('new-kinds'), fixtures('ctf'), '--out', questions, '--seed', 'oracle', '--no-audit');
    expect(built.code, built.stderr.slice(-2000)).toBe(0);
    const emitted = await cli('--quiet', 'emit', questions, '--suite', 'aptpace_allkinds', '--out', suites[1]!.include);
    expect(emitted.code, emitted.stderr.slice(-2000)).toBe(0);
    const jobs = suites.flatMap((suite) => ['oracle', 'anti'].map((mode) => ({ suite, mode, out: path.join(dir, 'runs', suite.name, mode) })));
    await Promise.all(
      jobs.map(async ({ suite, mode, out }) => {
        mkdirSync(out, { recursive: true });
        const r = await run(python, [LADDER, '--model', 'aptpace-ladder', '--model_args', `mode=${mode}`, '--include_path', suite.include, '--tasks', suite.name, '--log_samples', '--output_path', out], { cwd: dir });
        if (r.code !== 0) throw new Error(`lm_eval exited ${r.code}:\n${r.stderr.slice(-3000)}`);
      }),
    );
    for (const { suite, mode, out } of jobs) ingested.set(`${suite.name}/${mode}`, await ingestLogs(nodeVfs, [out]));
  }, 900_000);

  for (const suite of ['aptpace_fixtures', 'aptpace_allkinds'])
    it(`${suite}: every record is kept; the oracle scores 1 and the anti-oracle 0 on every right/wrong metric`, () => {
      for (const mode of ['oracle', 'anti']) {
        const r = ingested.get(`${suite}/${mode}`)!;
        expect(r.findings.filter((f) => f.severity === 'error'), mode).toEqual([]);
        expect(r.findings.map((f) => f.code), mode).not.toContain('samples-check-skipped');
        expect(r.tally.rejected, mode).toBe(0);
        const n = r.matrix.instances.length;
        expect(n).toBeGreaterThan(15);
        let rightWrong = 0;
        r.matrix.instances.forEach((inst, c) => {
          const v = r.matrix.values[c]!;
          if (RIGHT_WRONG.test(inst.metric)) {
            rightWrong++;
            expect(v, `${mode} ${inst.key} ${inst.metric}`).toBe(mode === 'oracle' ? 1 : 0);
          } else expect(v, `${mode} ${inst.key} ${inst.metric}`).toBeLessThanOrEqual(mode === 'oracle' ? 1 : 0.5);
          if (mode === 'oracle') expect(v, `${inst.key} ${inst.metric}`).toBe(1);
        });
        expect(rightWrong).toBeGreaterThan(n / 2);
      }
    });
});

describe('re-scoring a list target as lm-eval does', () => {
  const record = (target: string, response: string) => ({ target, filtered_resps: [response] });
  const em = { kind: 'exact-match', ignoreCase: false, ignorePunctuation: false, ignoreNumbers: false } as const;

  it('counts a response equal to any element of a logged list target', () => {
    expect(recomputeMetric(record("['edit 2:2']", 'edit 2:2'), em)).toBe(1);
    expect(recomputeMetric(record("['a', 'edit 2:2']", 'edit 2:2'), em)).toBe(1);
    expect(recomputeMetric(record("['a', 'b']", "['a', 'b']"), em)).toBe(0);
    expect(recomputeMetric(record('plain', 'plain'), em)).toBe(1);
    expect(recomputeMetric(record("['Edit']", 'edit'), { ...em, ignoreCase: true })).toBe(1);
  });

  it('says why a record could not be re-scored instead of passing it silently', () => {
    expect(recomputeMetric({ target: "['x']" }, em)).toEqual({ gap: 'no-filtered-resps' });
    expect(recomputeMetric({ filtered_resps: ['x'] }, em)).toEqual({ gap: 'no-target' });
    expect(recomputeMetric({ target: '1', filtered_resps: [[0, false]] }, { kind: 'mc-acc' })).toEqual({ gap: 'gold-out-of-range' });
  });

  it('rejects text that is not the repr of a list of strings', () => {
    for (const bad of ['', '[', "['a'", "['a',]", "['a' 'b']", "['a',  'b']", '[1]', "['\\q']", "['a'] ", "[u'a']"]) expect(parsePythonStringList(bad), bad).toBeNull();
    expect(parsePythonStringList('[]')).toEqual([]);
  });

  it.skipIf(!hasPython)('reads back Python’s own str(list) of awkward strings exactly', async () => {
    const script = [
      'import json, random',
      'rng = random.Random(7)',
      'alphabet = ["a", "Z", "0", " ", "\'", \'"\', "\\\\", "\\n", "\\t", "\\r", "\\x00", "\\x07", "\\x7f", "é", "漢", "\\u2028", "\\u00a0", "\\U0001f600", "\\ud7ff", "[", "]", ",", "\\u200b"]',
      'cases = [["edit 2:2"], [], [""], ["it\'s"], [\'say "hi"\'], ["both \' and \\""]]',
      'for _ in range(300):',
      '    cases.append(["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12))) for _ in range(rng.randint(1, 4))])',
      'print(json.dumps([[str(c), c] for c in cases]))',
    ].join('\n');
    const r = await run(python, ['-c', script]);
    expect(r.code, r.stderr).toBe(0);
    const cases = JSON.parse(r.stdout) as Array<[string, string[]]>;
    expect(cases.length).toBe(306);
    for (const [repr, list] of cases) expect(parsePythonStringList(repr), repr).toEqual(list);
  });
});
