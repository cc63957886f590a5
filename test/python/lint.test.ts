import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { inCi, repoRoot, venvBin } from '../helpers/env.js';

/**
 * The Python this project ships or runs is real Python, checked by Python's own tools: the proxy
 * suite's module, the `utils.py` every emitted suite carries (as rendered into the committed
 * suite), and the model classes the harness tests register. Rules: ruff.toml.
 */
const ruff = path.join(venvBin, 'ruff');
const FILES = ['templates/proxy-suite/aptpace_pace.py', 'test/python-site/sitecustomize.py', 'test/python/index-cache.py', 'templates/trackers/aptpace_track.py', 'test/report/read_trackers.py', 'dist-tasks/aptpace_fixtures/utils.py', 'test/models/ladder_model.py', 'test/emit/answer_model.py', 'test/emit/harness_probe.py'];

describe.skipIf(!existsSync(ruff) && !inCi)('Python files pass ruff and compile', () => {
  it('ruff check finds nothing', () => {
    const r = spawnSync(ruff, ['check', '--no-cache', '--output-format', 'concise', ...FILES], { cwd: repoRoot, encoding: 'utf8' });
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
  });

  it('every file compiles with the test interpreter (in memory: no __pycache__ beside the committed suite)', () => {
    const script = 'import sys\nfor f in sys.argv[1:]:\n    compile(open(f, encoding="utf-8").read(), f, "exec")';
    const r = spawnSync(path.join(venvBin, 'python'), ['-c', script, ...FILES], { cwd: repoRoot, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
  });
});
