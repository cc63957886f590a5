import { Writable } from 'node:stream';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../generator/cli/main.js';
import { progressLine } from '../../generator/cli/progress.js';
import { fixtures } from '../helpers/env.js';
import { tempDir } from '../helpers/tmp.js';
import { nodeVfs } from '../../generator/core/kernel/node-vfs.js';
import { saveStore } from '../../generator/core/logs/store.js';
import { syntheticPace } from '../../generator/core/pace/inputs/synthetic.js';

/** A stand-in terminal: collects what the progress bar draws. */
function fakeTerminal(isTTY: boolean): Writable & { isTTY: boolean; columns: number; rows: number; text: () => string } {
  let drawn = '';
  const stream = new Writable({
    write(chunk, _enc, done) {
      drawn += chunk.toString();
      done();
    },
  }) as Writable & { isTTY: boolean; columns: number; rows: number; text: () => string };
  stream.isTTY = isTTY;
  stream.columns = 120;
  stream.rows = 40;
  stream.text = () => drawn;
  return stream;
}

async function run(argv: string[], terminal: ReturnType<typeof fakeTerminal>) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s), progressStream: terminal });
  return { code, stdout, stderr, drawn: terminal.text() };
}

const buildArgv = (out: string, ...extra: string[]) => ['build', fixtures('trajectories', 'good'), '--report', fixtures('trajectories', 'reports', 'instance-verdicts.json'), '--out', out, ...extra];

describe('progress bars', () => {
  it('build draws read and build progress on a terminal', async () => {
    const dir = tempDir();
    const res = await run(buildArgv(path.join(dir, 'q.jsonl')), fakeTerminal(true));
    expect(res.drawn).toMatch(/read: \d+ trajectories read/);
    expect(res.drawn).toMatch(/build: \[[#.]+\]\s+\d+% \d+\/\d+ \S+: trajectories/);
    // The bar goes to the terminal stream, never into the command's stdout.
    expect(res.stdout).not.toMatch(/trajectories read/);
  });

  it('writes nothing when stderr is not a terminal, under --json, or under --quiet', async () => {
    const dir = tempDir();
    for (const [name, isTTY, extra, columns] of [['pipe', false, [], 120], ['json', true, ['--json'], 120], ['quiet', true, ['--quiet'], 120], ['0 columns', true, [], 0], ['narrow', true, [], 12]] as const) {
      const terminal = fakeTerminal(isTTY);
      terminal.columns = columns;
      const res = await run(buildArgv(path.join(dir, `${name}.jsonl`), ...extra), terminal);
      expect(res.code, name).toBeLessThan(2);
      expect(res.drawn, name).toBe('');
    }
  });

  it('ingest, evaluate and fit report files read, LOOCV folds and targets fitted', async () => {
    const dir = tempDir();
    const store = path.join(dir, 'store');
    const ingest = await run(['ingest', fixtures('logs', 'harness-output'), '--out', path.join(dir, 'logs-store')], fakeTerminal(true));
    expect(ingest.drawn).toMatch(/ingest: \[[#.]+\]\s+\d+% \d+\/\d+ samples files read/);
    // A small population: the bars are under test here, not the fits (the example data costs 30 s more).
    const syn = syntheticPace({ models: 12, instances: 240, dims: 2, targets: 2, targetInstances: 40, seed: 'progress' });
    await saveStore(nodeVfs, store, { matrix: syn.matrix, targets: syn.targets });
    const evaluate = await run(['evaluate', '--store', store, '--bootstrap', '0', '--max-folds', '3'], fakeTerminal(true));
    expect(evaluate.drawn).toMatch(/evaluate: \[[#.]+\]\s+\d+% \d+\/\d+ LOOCV folds/);
    // With a bar on screen, the per-fold lines are left out of stderr; without a terminal too.
    expect(evaluate.stderr).not.toMatch(/loocv .*: fold/);
    const logged = await run(['evaluate', '--store', store, '--bootstrap', '0', '--max-folds', '3'], fakeTerminal(false));
    expect(logged.code).toBeLessThan(2);
    expect(logged.stderr).not.toMatch(/fold \d+\//);
    const fit = await run(['fit', '--store', store, '--bootstrap', '0', '--out', path.join(dir, 'fit')], fakeTerminal(true));
    expect(fit.drawn).toMatch(/fit: \[[#.]+\]\s+\d+% \d+\/\d+ targets fitted/);
  });

  it('the progress line shows a bar for a known total and a counter otherwise', () => {
    expect(progressLine(5, 20, 'folds')).toBe(`[${'#'.repeat(6)}${'.'.repeat(18)}]  25% 5/20 folds`);
    expect(progressLine(7, undefined, 'trajectories read')).toBe('7 trajectories read');
  });
});
