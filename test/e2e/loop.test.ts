import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { fixtures, lmEval } from '../helpers/env.js';
import { tempDir } from '../helpers/tmp.js';
import { nodeVfs } from '../../generator/core/kernel/node-vfs.js';
import { ingestLogs } from '../../generator/core/logs/index.js';
import { jsonlRows, run, runHarnessTests, sha256Hex } from '../emit/support.js';

/**
 * The loop closes through the harness, not through imports: our own trajectories become a
 * suite, the real lm_eval runs it for two "checkpoints", and the logs come back as source
 * instances of the score matrix, keyed exactly by the documents we emitted.
 */
describe.skipIf(!runHarnessTests)('trajectories → build → emit → lm_eval → ingest', () => {
  const dir = tempDir('aptpace-loop-');
  const suite = 'aptpace_loop';
  const suiteDir = path.join(dir, suite);
  const logs = path.join(dir, 'logs');
  const checkpoints = ['ckpt-a', 'ckpt-b'];
  let emitted: { tasks: Array<{ task: string; docs: number }> };
  let ingested: Awaited<ReturnType<typeof ingestLogs>>;

  beforeAll(async () => {
    const questions = path.join(dir, 'questions.jsonl');
    const built = await cli('--quiet', 'build', fixtures('canonical'), '--out', questions, '--seed', 'loop');
    expect(built.code, built.stderr.slice(-2000)).toBe(0);
    const emit = await cli('--json', 'emit', questions, '--suite', suite, '--out', suiteDir);
    expect(emit.code, emit.stderr.slice(-2000)).toBe(0);
    emitted = emit.json.data;
    // Two checkpoints in parallel; --seed fixes the dummy model's random answers per run.
    const runs = await Promise.all(
      checkpoints.map((name, i) =>
        run(lmEval, ['--model', 'dummy', '--model_args', `pretrained=${name}`, '--include_path', suiteDir, '--tasks', suite, '--log_samples', '--output_path', logs, '--seed', String(i)], { cwd: dir }),
      ),
    );
    for (const r of runs) if (r.code !== 0) throw new Error(`lm_eval exited ${r.code}:\n${r.stderr.slice(-3000)}`);
    ingested = await ingestLogs(nodeVfs, [logs]);
  }, 300_000);

  it('reads every emitted document of every task for both checkpoints, with no errors', () => {
    expect(ingested.findings.filter((f) => f.severity === 'error')).toEqual([]);
    expect(ingested.matrix.models.map((m) => m.name).sort()).toEqual(checkpoints);
    // Keyed by our question ids (the `id` of each emitted row), not by position.
    const expectedKeys = emitted.tasks.flatMap((t) => jsonlRows(path.join(suiteDir, 'data', `${t.task}.test.jsonl`)).map((row) => `${t.task}/${row.id}`)).sort();
    expect(expectedKeys).toHaveLength(emitted.tasks.reduce((n, t) => n + t.docs, 0));
    expect(ingested.matrix.instances.map((i) => i.key).sort()).toEqual(expectedKeys);
    expect(ingested.matrix.instances.every((i) => i.question_id === i.doc_id)).toBe(true);
    expect(ingested.matrix.observed.every((o) => o === 1)).toBe(true);
  });

  it('keys instances by the content of our JSONL rows (doc_hash), the same for both checkpoints', () => {
    for (const inst of ingested.matrix.instances) {
      const rows = jsonlRows(path.join(suiteDir, 'data', `${inst.task}.test.jsonl`));
      expect(inst.doc_hash).toBe(sha256Hex(JSON.stringify(rows.find((row) => row.id === inst.question_id), null, 2)));
    }
  });

  it('scores are the per-sample metric the harness logged, in [0, 1]', () => {
    const n = ingested.matrix.instances.length;
    for (let m = 0; m < checkpoints.length; m++) {
      for (let c = 0; c < n; c++) {
        const v = ingested.matrix.values[m * n + c]!;
        expect(v).toBeGreaterThanOrEqual(0);
        expect(v).toBeLessThanOrEqual(1);
      }
    }
    // Spot-check one MCQ cell against the raw samples file.
    const inst = ingested.matrix.instances.find((i) => i.task === 'aptpace_swe_plan_mcq')!;
    const folder = path.join(logs, checkpoints[0]!);
    const samplesName = readdirSync(folder).find((f) => f.startsWith(`samples_${inst.task}_`));
    const record = readFileSync(path.join(folder, samplesName!), 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l)).find((r) => r.doc.id === inst.question_id);
    const row = ingested.matrix.models.findIndex((m) => m.name === checkpoints[0]);
    expect(ingested.matrix.values[row * n + ingested.matrix.instances.indexOf(inst)]).toBe(record[inst.metric.split(',')[0]!]);
  });
});
