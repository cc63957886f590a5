/**
 * A trajectory field present with the wrong type is a warning naming the field, never a silent
 * drop: the record is still read, the user is told which value was ignored.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/tmp.js';
import { fixtures } from '../helpers/env.js';
import { nodeVfs } from '../../generator/core/kernel/node-vfs.js';
import { readTrajectories } from '../../generator/core/trajectories/read.js';

const dir = tempDir('aptpace-wrong-types-');

/** The first record of a good fixture with `edit` applied, read back: the ignored fields it reports. */
async function ignored(fixture: string, edit: (record: any) => void, jsonl = fixture.endsWith('.jsonl')): Promise<{ fields: string[]; accepted: number }> {
  const text = readFileSync(fixtures('trajectories', 'good', fixture), 'utf8');
  const record = JSON.parse(jsonl ? text.split('\n')[0]! : text);
  edit(record);
  const file = path.join(dir, `${Math.random().toString(36).slice(2)}-${fixture}`);
  writeFileSync(file, jsonl ? `${JSON.stringify(record)}\n` : JSON.stringify(record));
  const read = await readTrajectories(nodeVfs, [file]);
  return { fields: read.findings.filter((f) => f.code === 'traj-field-ignored').map((f) => f.path.field!).sort(), accepted: read.tally.accepted };
}

describe('wrong-typed trajectory fields are findings', () => {
  it('openhands output: instance: 7 and test_result: "x"', async () => {
    expect(await ignored('openhands-output.jsonl', (r) => Object.assign(r, { instance: 7, test_result: 'x' }))).toEqual({ fields: ['instance', 'test_result'], accepted: 1 });
    expect((await ignored('openhands-output.jsonl', (r) => Object.assign(r, { metrics: { accumulated_cost: 'cheap' } }))).fields).toEqual(['metrics.accumulated_cost']);
  });

  it('chat messages: model and a patch of the wrong type', async () => {
    expect((await ignored('chat-messages.jsonl', (r) => Object.assign(r, { model: 5, run_id: ['a'] }))).fields).toEqual(['model', 'run_id']);
  });

  it('deep research: source and gold answer of the wrong type', async () => {
    expect((await ignored('deep-research.jsonl', (r) => Object.assign(r, { source: 3, query_answer: { a: 1 } }))).fields).toEqual(['query_answer', 'source']);
  });

  it('swe-agent: info that is not an object, and model stats of the wrong type', async () => {
    expect((await ignored('acme__widgets-12.traj', (r) => Object.assign(r, { info: [] }), false)).fields).toEqual(['info']);
    expect((await ignored('acme__widgets-12.traj', (r) => Object.assign(r, { info: { ...r.info, model_stats: { instance_cost: 'x' }, exit_status: 1 } }), false)).fields).toEqual(['info.exit_status', 'info.model_stats.instance_cost']);
  });

  it('openhands events: wrong-typed event fields name the event and field (file and line come with them)', async () => {
    const edit = (r: any[]) => {
      r[1].args.content = 7; // the goal
      r[2].args.command = ['wc']; // the command run
      r[3].success = 'yes';
      r[3].extras = { metadata: { exit_code: '0' } };
      r[5].cause = '4';
      r[7].args.final_thought = { text: 'done' };
    };
    expect((await ignored('openhands-events.json', edit, false)).fields).toEqual(['[1].args.content', '[2].args.command', '[3].extras.metadata.exit_code', '[3].success', '[5].cause', '[7].args.final_thought']);
    const text = readFileSync(fixtures('trajectories', 'good', 'openhands-events.json'), 'utf8');
    const events = JSON.parse(text);
    events[2].args = 'wc -l';
    const file = path.join(dir, 'events-args.json');
    writeFileSync(file, JSON.stringify(events));
    const read = await readTrajectories(nodeVfs, [file]);
    const f = read.findings.find((x) => x.code === 'traj-field-ignored')!;
    expect(f.path).toMatchObject({ file, field: '[2].args' });
    expect(f.args).toEqual({ expected: 'an object', actual: 'string' });
  });

  it('a field of the right type, or absent, is no finding', async () => {
    expect((await ignored('openhands-events.json', () => undefined, false)).fields).toEqual([]);
    expect((await ignored('openhands-output.jsonl', () => undefined)).fields).toEqual([]);
    expect((await ignored('chat-messages.jsonl', (r) => delete r.model)).fields).toEqual([]);
  });
});
