import { mkdirSync, openSync, closeSync, ftruncateSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeVfs } from '../../generator/core/kernel/node-vfs.js';
import { streamTrajectories, tallyOf, type FileSummary } from '../../generator/core/trajectories/read.js';
import type { Finding } from '../../generator/core/kernel/findings.js';
import { repoRoot } from '../helpers/env.js';
import { tempDir } from '../helpers/tmp.js';

async function drain(inputs: string[], options = {}) {
  const findings: Finding[] = [];
  const files: FileSummary[] = [];
  let trajectories = 0;
  for await (const ev of streamTrajectories(nodeVfs, inputs, options)) {
    if (ev.kind === 'finding') findings.push(ev.finding);
    else if (ev.kind === 'file') files.push(ev.summary);
    else trajectories++;
  }
  return { findings, files, trajectories, tally: tallyOf(files, findings) };
}

describe('scale', () => {
  const dir = tempDir('aptpace-scale-');

  it('a folder of 10,000 files: all read in sorted order, the broken ones named', async () => {
    const root = path.join(dir, 'many');
    for (let shard = 0; shard < 10; shard++) mkdirSync(path.join(root, `shard-${shard}`), { recursive: true });
    for (let i = 0; i < 10_000; i++) {
      const file = path.join(root, `shard-${i % 10}`, `run-${String(i).padStart(5, '0')}.json`);
      const body =
        i % 1000 === 999
          ? '{"messages": [{"role": "user", "content": "cut'
          : JSON.stringify({ instance_id: `task-${i}`, messages: [{ role: 'user', content: `do ${i}` }, { role: 'assistant', content: `done ${i}` }] });
      writeFileSync(file, body);
    }
    const r = await drain([root]);
    expect(r.files).toHaveLength(10_000);
    expect(r.trajectories).toBe(9_990);
    expect(r.tally).toEqual({ read: 10_000, accepted: 9_990, rejected: 10 });
    expect(r.findings.map((f) => f.code)).toEqual(Array(10).fill('traj-truncated'));
    expect(r.findings.map((f) => path.basename(f.path.file!))).toEqual(['run-00999.json', 'run-01999.json', 'run-02999.json', 'run-03999.json', 'run-04999.json', 'run-05999.json', 'run-06999.json', 'run-07999.json', 'run-08999.json', 'run-09999.json']);
    const order = r.files.map((f) => path.relative(root, f.file));
    expect(order).toEqual([...order].sort());
  }, 60_000);

  it('500 MB files: a JSON document is refused unread, a JSONL line is skipped in bounded memory', async () => {
    const big = 500 * 1024 * 1024;
    // Sparse files: 500 MB on paper, no disk space used. Neither contains a newline.
    for (const name of ['huge.json', 'huge.jsonl']) {
      const fd = openSync(path.join(dir, name), 'w');
      ftruncateSync(fd, big);
      closeSync(fd);
    }
    const r = await drain([path.join(dir, 'huge.json'), path.join(dir, 'huge.jsonl')]);
    expect(r.findings.map((f) => [f.code, path.basename(f.path.file!), f.path.line])).toEqual([
      ['traj-file-too-large', 'huge.json', undefined],
      ['traj-line-too-long', 'huge.jsonl', 1],
    ]);
    expect(r.findings[0]!.args).toEqual({ bytes: big, limit: 64 * 1024 * 1024 });
    expect(r.findings[1]!.args).toEqual({ bytes: big, limit: 64 * 1024 * 1024 });
    expect(r.tally).toEqual({ read: 2, accepted: 0, rejected: 2 });

    // Peak memory, measured in a fresh process so earlier tests cannot hide it: reading both
    // files costs far less than one of them.
    const script = path.join(dir, 'peak.mts');
    writeFileSync(
      script,
      `import { nodeVfs } from ${JSON.stringify(path.join(repoRoot, 'generator/core/kernel/node-vfs.ts'))};
import { streamTrajectories } from ${JSON.stringify(path.join(repoRoot, 'generator/core/trajectories/read.ts'))};
for await (const _ of streamTrajectories(nodeVfs, process.argv.slice(2))) {}
console.log(process.resourceUsage().maxRSS / 1024);`,
    );
    const peak = (files: string[]) => {
      const res = spawnSync(process.execPath, ['--import', 'tsx', script, ...files], { cwd: repoRoot, encoding: 'utf8' });
      expect(res.status, res.stderr).toBe(0);
      return Number(res.stdout.trim());
    };
    const baseline = peak([]);
    const reading = peak([path.join(dir, 'huge.json'), path.join(dir, 'huge.jsonl')]);
    expect(reading - baseline).toBeLessThan(150);
  }, 60_000);
});
