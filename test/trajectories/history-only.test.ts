import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeVfs } from '../../generator/core/kernel/node-vfs.js';
import { MemoryVfs } from '../../generator/core/kernel/memory-vfs.js';
import { readTrajectories } from '../../generator/core/trajectories/read.js';
import { detectTrajectoryLanguage, looksLikeCtf } from '../../generator/core/trajectories/text.js';
import { validateTrajectory } from '../../generator/core/trajectories/schema.js';
import { cli } from '../helpers/cli.js';
import { fixtures, hasSharedData, shared } from '../helpers/env.js';
import { tempDir } from '../helpers/tmp.js';

const history = (name: string) => fixtures('trajectories', 'swe-agent-history', name);

describe('SWE-agent demonstration files (history only)', () => {
  it('classic: the action is the last fenced block of each reply, the thought what precedes it', async () => {
    const r = await readTrajectories(nodeVfs, [history('acme__widgets-21.classic.traj')]);
    expect(r.tally).toMatchObject({ read: 1, accepted: 1, rejected: 0 });
    expect(r.files[0]!.format).toBe('swe-agent-traj');
    const t = r.trajectories[0]!;
    expect(t.task.instance_id).toBe('acme__widgets-21');
    expect(t.task.goal).toBe("widgets.perimeter() ignores the unit argument\nperimeter(2, unit='cm') returns 8 instead of '8 cm'.");
    expect(t.steps.map((s) => s.action.text)).toEqual(['grep -rn "def perimeter" src/', 'open src/widgets/geometry.py 9', 'submit']);
    expect(t.steps.map((s) => s.action.kind)).toEqual(['shell', 'tool_call', 'finish']);
    expect(t.steps[1]!.action.args).toEqual({ path: 'src/widgets/geometry.py', line_number: '9' });
    expect(t.steps[0]!.thought).toBe('Let me find where perimeter is defined.');
    expect(t.steps[0]!.observation).toBe('src/widgets/geometry.py:9:def perimeter(side, unit=None):');
    expect(t.domain).toBe('swe');
    // No `info`: nothing was even self-reported, and nothing is success without evidence.
    expect(t.outcome).toMatchObject({ exit_status: null, success: null, success_source: 'unknown' });
  });

  it('function calling: tool_calls give tool and arguments, tool messages (tool_call_ids) the observations', async () => {
    const r = await readTrajectories(nodeVfs, [history('acme__widgets-22.function_calling.traj')]);
    expect(r.tally.rejected).toBe(0);
    const t = r.trajectories[0]!;
    expect(t.task.goal).toBe('widgets.volume() overflows for large cubes');
    expect(t.steps.map((s) => [s.action.kind, s.action.tool])).toEqual([
      ['tool_call', 'str_replace_editor'],
      ['shell', 'bash'],
      ['finish', 'submit'],
    ]);
    expect(t.steps[0]!.action.args).toEqual({ command: 'view', path: '/testbed/src/widgets/solid.py' });
    expect(t.steps.map((s) => s.observation)).toEqual(['1 def volume(side):', '3 passed', 'diff --git a/src/widgets/solid.py b/src/widgets/solid.py']);
  });

  it('is detected, and accepted under --format swe-agent-traj (exit 0); a plain chat log is not taken for one', async () => {
    const dir = fixtures('trajectories', 'swe-agent-history');
    const auto = await cli('inspect', dir, '--json');
    expect(auto.code, auto.stderr).toBe(0);
    expect(auto.json.data.files.map((f: any) => f.format)).toEqual(['swe-agent-traj', 'swe-agent-traj', 'swe-agent-traj']);
    const forced = await cli('inspect', dir, '--format', 'swe-agent-traj', '--json');
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.json.data.tally).toMatchObject({ accepted: 3, rejected: 0 });

    // `history` of bare chat messages (no agent / message_type) stays unknown.
    const vfs = new MemoryVfs({ '/in/chat.json': JSON.stringify({ history: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }] }) });
    const plain = await readTrajectories(vfs, ['/in/chat.json']);
    expect(plain.findings.map((f) => f.code)).toEqual(['traj-unknown-format']);
  });

  it('a history with no assistant turn is rejected with the file and field, not taken as empty success', async () => {
    const vfs = new MemoryVfs({ '/in/x.traj': JSON.stringify({ history: [{ role: 'system', content: 's', agent: 'main', message_type: 'system_prompt' }] }) });
    const r = await readTrajectories(vfs, ['/in/x.traj'], { format: 'swe-agent-traj' });
    expect(r.tally).toMatchObject({ read: 1, accepted: 0, rejected: 1 });
    expect(r.findings[0]).toMatchObject({ code: 'traj-format-mismatch', path: { file: '/in/x.traj' } });
  });

  it('the same success rules as other SWE-agent files: a report row makes it proven', async () => {
    const dir = tempDir('aptpace-hist-');
    const report = path.join(dir, 'report.json');
    writeFileSync(report, JSON.stringify({ resolved_ids: ['acme__widgets-22'], unresolved_ids: ['acme__widgets-21'] }));
    const r = await readTrajectories(nodeVfs, [history('acme__widgets-21.classic.traj'), history('acme__widgets-22.function_calling.traj')], { reports: [report] });
    expect(r.trajectories.map((t) => [t.task.instance_id, t.outcome.success, t.outcome.success_source])).toEqual([
      ['acme__widgets-21', false, 'harness_report'],
      ['acme__widgets-22', true, 'harness_report'],
    ]);
  });
});

describe.skipIf(!hasSharedData)('real SWE-agent files with everything but history removed', () => {
  for (const name of ['marshmallow-code__marshmallow-1867.classic.traj', 'marshmallow-code__marshmallow-1867.function_calling.traj']) {
    it(`${name}: reads as the same steps as the full file`, async () => {
      const full = JSON.parse(readFileSync(shared('trajectories', 'swe-agent', name), 'utf8'));
      const file = path.join(tempDir('aptpace-hist-real-'), name);
      writeFileSync(file, JSON.stringify({ history: full.history }));
      const whole = await readTrajectories(nodeVfs, [shared('trajectories', 'swe-agent', name)]);
      const only = await readTrajectories(nodeVfs, [file], { format: 'swe-agent-traj' });
      expect(only.tally).toMatchObject({ accepted: 1, rejected: 0 });
      const [a, b] = [whole.trajectories[0]!, only.trajectories[0]!];
      expect(b.steps.length).toBeGreaterThan(5);
      expect(b.steps.map((s) => s.action.text)).toEqual(a.steps.map((s) => s.action.text));
      // History observations keep the prompt state SWE-agent appends, e.g. `(Open file: …)\n(Current directory: …)\nbash-$`.
      // The submit turn may have no reply in history; every earlier step has its observation.
      b.steps.slice(0, -1).forEach((s, i) => expect((s.observation ?? '').replace(/\r/g, '')).toContain((a.steps[i]!.observation ?? '').replace(/\r/g, '').trim()));
      // replay_config keeps the trailing newline; the history text is trimmed.
      expect(b.task.goal).toBe(a.task.goal.trim());
    });
  }
});

describe('case-only variants of one instance id', () => {
  it('are recorded as the first spelling read, with a warning naming both', async () => {
    const r = await readTrajectories(nodeVfs, [fixtures('trajectories', 'case-variants')]);
    expect(r.tally).toMatchObject({ accepted: 2, rejected: 0 });
    expect(r.trajectories.map((t) => t.task.instance_id)).toEqual(['SWE-agent__test-repo-1', 'SWE-agent__test-repo-1']);
    expect(r.trajectories.map((t) => t.traj_id.split(':').slice(0, 2).join(':'))).toEqual(['swe-agent:SWE-agent__test-repo-1', 'swe-agent:SWE-agent__test-repo-1']);
    expect(new Set(r.trajectories.map((t) => t.traj_id)).size).toBe(2);
    expect(r.trajectories[1]!.environment.repo).toBe('SWE-agent/test-repo');
    const warning = r.findings.find((f) => f.code === 'traj-instance-id-case')!;
    expect(warning).toMatchObject({ severity: 'warning', path: { file: fixtures('trajectories', 'case-variants', 'swe-agent__test-repo-1.traj'), field: 'task.instance_id' } });
    expect(warning.args).toEqual({ id: 'swe-agent__test-repo-1', canonical: 'SWE-agent__test-repo-1' });
    for (const t of r.trajectories) expect(validateTrajectory(t, { file: 'x' })).toEqual([]);
  });
});

describe('domain: capture-the-flag runs', () => {
  it('a CTF problem statement gives domain ctf; --domain overrides; the canonical record validates', async () => {
    const r = await readTrajectories(nodeVfs, [history('ctf-rusty.traj')]);
    expect(r.trajectories[0]!.domain).toBe('ctf');
    expect(validateTrajectory(r.trajectories[0]!, { file: 'x' })).toEqual([]);
    const forced = await readTrajectories(nodeVfs, [history('ctf-rusty.traj')], { domain: 'swe' });
    expect(forced.trajectories[0]!.domain).toBe('swe');
    const out = path.join(tempDir('aptpace-ctf-'), 'c.jsonl');
    const n = await cli('normalize', history('acme__widgets-21.classic.traj'), '--domain', 'ctf', '--out', out);
    expect(n.code, n.stderr).toBe(0);
    expect(JSON.parse(readFileSync(out, 'utf8')).domain).toBe('ctf');
    const bad = await cli('inspect', history('ctf-rusty.traj'), '--domain', 'security');
    expect(bad.code).toBe(2);
  });

  it('CTF wording, not a bare "flag" (SWE issues talk about command-line flags)', () => {
    for (const yes of ['solve the following CTF challenge', 'The flag format is picoCTF{...}', 'a Hack The Box machine', 'find the flag hidden in the binary', 'flag{abc}']) expect(looksLikeCtf(yes), yes).toBe(true);
    for (const no of ['add a --verbose flag to the CLI', 'the feature flag is ignored', 'setting the DEBUG flag breaks logging', 'ctfconfig module']) expect(looksLikeCtf(no), no).toBe(false);
  });
});

describe('language of a trajectory', () => {
  it('the goal decides when it has enough letters; a short goal is judged with the thoughts', () => {
    expect(detectTrajectoryLanguage('吉列尔莫·加尔萨执导的电影有哪些获得了奖项？', [])).toBe('zh');
    expect(detectTrajectoryLanguage('Which films directed by Guillermo Garza won awards?', ['我先搜索导演的名字。'])).toBe('en');
    // A bare id says nothing; the agent's Chinese thoughts do.
    expect(detectTrajectoryLanguage('Q-1234', ['我需要先搜索这个问题的背景资料，然后再回答。', '找到了相关的新闻报道。'])).toBe('zh');
    expect(detectTrajectoryLanguage('Q-1234', ['I will search for the background first.'])).toBe('en');
  });

  it('is recorded in task.language, and --language overrides detection on inspect/normalize', async () => {
    const out = path.join(tempDir('aptpace-lang-'), 'l.jsonl');
    const n = await cli('normalize', history('acme__widgets-21.classic.traj'), '--language', 'zh', '--out', out);
    expect(n.code, n.stderr).toBe(0);
    expect(JSON.parse(readFileSync(out, 'utf8')).task.language).toBe('zh');
    const detected = await readTrajectories(nodeVfs, [history('acme__widgets-21.classic.traj')]);
    expect(detected.trajectories[0]!.task.language).toBe('en');
    expect((await cli('inspect', history('ctf-rusty.traj'), '--language', 'fr')).code).toBe(2);
  });
});
