import { describe, expect, it } from 'vitest';
import { nodeVfs } from '../../generator/core/kernel/node-vfs.js';
import { MemoryVfs } from '../../generator/core/kernel/memory-vfs.js';
import { exitCodeFor } from '../../generator/core/kernel/exit-codes.js';
import { readTrajectories } from '../../generator/core/trajectories/read.js';
import { fixtures } from '../helpers/env.js';

const bad = (name: string) => fixtures('trajectories', 'bad', name);
const where = (r: Awaited<ReturnType<typeof readTrajectories>>) =>
  r.findings.map((f) => ({ code: f.code, line: f.path.line, field: f.path.field }));

describe('broken inputs: each gets a finding with file, line and field; the rest is still read', () => {
  it('malformed JSON reports line and column', async () => {
    const r = await readTrajectories(nodeVfs, [bad('malformed.json')]);
    expect(where(r)).toEqual([{ code: 'traj-malformed-json', line: 3, field: undefined }]);
    expect(r.findings[0]!.args.column).toBe(41);
    expect(r.findings[0]!.path.file).toBe(bad('malformed.json'));
  });

  it('a cut-off document is reported as truncated', async () => {
    const r = await readTrajectories(nodeVfs, [bad('truncated.traj')]);
    expect(r.findings.map((f) => f.code)).toEqual(['traj-truncated']);
  });

  it('a JSONL file cut mid-line keeps its complete lines', async () => {
    const r = await readTrajectories(nodeVfs, [bad('truncated-last-line.jsonl')]);
    expect(where(r)).toEqual([{ code: 'traj-truncated', line: 3, field: undefined }]);
    expect(r.findings[0]!.args.unterminated).toBe(true);
    expect(r.trajectories.map((t) => t.task.instance_id)).toEqual(['t-1', 't-2']);
    expect(r.tally).toEqual({ read: 3, accepted: 2, rejected: 1 });
  });

  it('unknown shapes name what they found and what was expected', async () => {
    const r = await readTrajectories(nodeVfs, [bad('unknown-format.json')]);
    expect(r.findings.map((f) => f.code)).toEqual(['traj-unknown-format']);
    expect(r.findings[0]!.args).toMatchObject({ shape: 'JSON object', keys: 'name, rows' });
    expect(String(r.findings[0]!.args.expected)).toContain('SWE-agent .traj');
  });

  it('wrong types are reported per record with the field path', async () => {
    const r = await readTrajectories(nodeVfs, [bad('wrong-types.jsonl')]);
    expect(where(r)).toEqual([
      { code: 'traj-wrong-type', line: 1, field: 'trajectory[0].execution' },
      { code: 'traj-wrong-type', line: 2, field: 'trajectory[0].execution.args' },
      { code: 'traj-wrong-type', line: 3, field: 'messages[1].tool_calls' },
      { code: 'traj-wrong-type', line: 5, field: 'instance_id' },
      { code: 'traj-missing-field', line: 6, field: 'instance_id' },
    ]);
    expect(r.findings[0]!.args).toEqual({ expected: 'an object {name, args}', actual: 'string' });
    expect(r.trajectories.map((t) => t.task.instance_id)).toEqual(['w-4']);
    expect(r.tally).toEqual({ read: 6, accepted: 1, rejected: 5 });
  });

  it('empty trajectories, empty files and whitespace-only files', async () => {
    const r = await readTrajectories(nodeVfs, [bad('empty-trajectory.traj'), bad('empty-file.json'), bad('whitespace.jsonl')]);
    expect(r.findings.map((f) => [f.code, f.path.file?.split('/').pop()])).toEqual([
      ['traj-empty', 'empty-trajectory.traj'],
      ['traj-empty-file', 'empty-file.json'],
      ['traj-empty-file', 'whitespace.jsonl'],
    ]);
    expect(r.tally).toEqual({ read: 3, accepted: 0, rejected: 3 });
  });

  it('non-UTF-8 bytes cost one JSONL line, or the whole document with its line', async () => {
    const jsonl = await readTrajectories(nodeVfs, [bad('invalid-utf8.jsonl')]);
    expect(where(jsonl)).toEqual([{ code: 'traj-invalid-utf8', line: 2, field: undefined }]);
    expect(jsonl.trajectories.map((t) => t.task.instance_id)).toEqual(['t-1', 't-5']);
    const doc = await readTrajectories(nodeVfs, [bad('invalid-utf8.json')]);
    expect(where(doc)).toEqual([{ code: 'traj-invalid-utf8', line: 3, field: undefined }]);
    // "\xc3\x28": the 0xc3 lead byte sits after `[\n  {…},\n  {"role": "assistant", "content": "`.
    expect(doc.findings[0]!.args.offset).toBe(75);
  });

  it('canonical records are checked against the schema, one finding per violation', async () => {
    const r = await readTrajectories(nodeVfs, [bad('bad-canonical.jsonl')]);
    expect(where(r)).toEqual([
      { code: 'traj-schema-invalid', line: 1, field: 'task.goal' },
      { code: 'traj-schema-invalid', line: 1, field: 'steps[0].action.text' },
      { code: 'traj-schema-invalid', line: 1, field: 'outcome.success_source' },
      { code: 'traj-schema-invalid', line: 2, field: 'steps' },
      { code: 'traj-schema-invalid', line: 3, field: 'surprise' },
      { code: 'traj-schema-invalid', line: 3, field: 'outcome.success' },
    ]);
    expect(r.tally.rejected).toBe(3);
  });

  it('the whole bad folder: every file accounted for, exit code 1, non-trajectory files skipped', async () => {
    const r = await readTrajectories(nodeVfs, [fixtures('trajectories', 'bad')]);
    expect(r.files).toHaveLength(11);
    expect(r.tally.read).toBe(r.tally.accepted + r.tally.rejected);
    expect(r.tally.skipped).toEqual({ extension: 1 });
    expect(r.tally.rejected).toBe(r.files.reduce((n, f) => n + f.rejected, 0));
    expect(r.tally.accepted).toBe(5);
    expect(exitCodeFor({ findings: r.findings })).toBe(1);
    // Two files hold the same record: the second copy is warned about, not dropped.
    expect(r.findings.filter((f) => f.code === 'traj-duplicate-id')).toHaveLength(1);
  });

  it('missing inputs and globs that match nothing are findings, not crashes', async () => {
    const r = await readTrajectories(nodeVfs, [bad('nope.json'), fixtures('trajectories', 'bad', '*.nothing'), bad('malformed.json')]);
    expect(r.findings.map((f) => f.code)).toEqual(['traj-input-missing', 'no-inputs', 'traj-malformed-json']);
    expect(r.tally).toEqual({ read: 3, accepted: 0, rejected: 3 });
  });
});

describe('size limits', () => {
  it('a whole-document JSON above the limit is refused unread; JSONL of any size streams', async () => {
    const row = JSON.stringify({ uuid: 'big', query: 'q', trajectory: [{ planning: 'p', execution: { name: 'web_search', args: { text: 'x'.repeat(2000) } }, observation: 'o' }] });
    const vfs = new MemoryVfs({
      '/in/big.json': JSON.stringify({ messages: [{ role: 'user', content: 'x'.repeat(5000) }] }),
      '/in/big.jsonl': `${row}\n${row.replace('"big"', '"big2"')}\n`,
      // Not named .jsonl but holding JSONL: detected from its first line.
      '/in/rows.json': `${row.replace('"big"', '"big3"')}\n${row.replace('"big"', '"big4"')}\n`,
    });
    const r = await readTrajectories(vfs, ['/in'], { maxFileBytes: 3000 });
    expect(r.findings.map((f) => [f.code, f.path.file])).toEqual([['traj-file-too-large', '/in/big.json']]);
    expect(r.findings[0]!.args).toMatchObject({ limit: 3000 });
    expect(r.trajectories.map((t) => t.task.instance_id)).toEqual(['big', 'big2', 'big3', 'big4']);
  });

  it('a JSONL line above the limit is skipped without being buffered', async () => {
    const small = JSON.stringify({ uuid: 's', query: 'q', trajectory: [{ planning: 'p', execution: { name: 'web_search', args: {} }, observation: 'o' }] });
    const vfs = new MemoryVfs({ '/x.jsonl': `${small}\n${'y'.repeat(10_000)}\n${small.replace('"s"', '"t"')}` });
    const r = await readTrajectories(vfs, ['/x.jsonl'], { maxFileBytes: 1000 });
    expect(r.findings.map((f) => [f.code, f.path.line])).toEqual([['traj-line-too-long', 2]]);
    expect(r.findings[0]!.args).toEqual({ bytes: 10_000, limit: 1000 });
    expect(r.trajectories.map((t) => t.task.instance_id)).toEqual(['s', 't']);
  });
});

describe('robustness', () => {
  it('nulls and odd values nested inside a record do not break the readers', async () => {
    // Step entries that are null inside an otherwise valid-looking SWE-agent history.
    const odd = { environment: 'swe_main', trajectory: [{ action: 'ls', observation: 'x', thought: 't', state: null }], history: [null, { role: 'assistant', content: 'ls' }], info: {} };
    const ok = { uuid: 'fine', query: 'q', trajectory: [{ planning: 'p', execution: { name: 'web_search', args: {} }, observation: 'o' }] };
    const vfs = new MemoryVfs({ '/a.jsonl': `${JSON.stringify(odd)}\n${JSON.stringify(ok)}\n` });
    const r = await readTrajectories(vfs, ['/a.jsonl']);
    expect(r.trajectories.map((t) => t.task.instance_id)).toEqual(['a', 'fine']);
    expect(r.tally.rejected).toBe(0);
  });
});
