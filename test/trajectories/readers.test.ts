import { describe, expect, it } from 'vitest';
import { nodeVfs } from '../../generator/core/kernel/node-vfs.js';
import { readTrajectories } from '../../generator/core/trajectories/read.js';
import type { Trajectory } from '../../generator/core/trajectories/types.js';
import { isProvenSuccess } from '../../generator/core/trajectories/types.js';
import { MemoryVfs } from '../../generator/core/kernel/memory-vfs.js';
import { fixtures } from '../helpers/env.js';

const good = (name: string) => fixtures('trajectories', 'good', name);

async function readOne(name: string, index = 0): Promise<{ t: Trajectory; all: Trajectory[]; codes: string[]; format: string | null }> {
  const r = await readTrajectories(nodeVfs, [good(name)]);
  expect(r.tally.rejected).toBe(0);
  return { t: r.trajectories[index]!, all: r.trajectories, codes: r.findings.map((f) => f.code), format: r.files[0]!.format };
}

const texts = (t: Trajectory) => t.steps.map((s) => s.action.text);

describe('SWE-agent .traj', () => {
  it('classic: text actions become commands with signature-bound arguments, demonstrations are skipped', async () => {
    const { t, format } = await readOne('acme__widgets-12.traj');
    expect(format).toBe('swe-agent-traj');
    expect(t.traj_id).toMatch(/^swe-agent:acme__widgets-12:[0-9a-f]{10}$/);
    expect(t.task.goal).toBe('widgets.area() returns a negative number for squares\nCalling area(-2) should raise ValueError.');
    expect(texts(t)).toEqual(['grep -rn "def area" src/', 'open src/widgets/geometry.py 3', 'edit 3:4', 'submit']);
    expect(t.steps.map((s) => s.action.kind)).toEqual(['shell', 'tool_call', 'tool_call', 'finish']);
    expect(t.steps[1]!.action.args).toEqual({ path: 'src/widgets/geometry.py', line_number: '3' });
    expect(t.steps[2]!.action.args).toEqual({
      start_line: '3',
      end_line: '4',
      replacement_text: 'def area(side):\n    if side < 0:\n        raise ValueError(side)\n    return side * side',
    });
    expect(t.steps[2]!.action.raw).toContain('end_of_edit');
    // The plan is the thought's first sentence; a step without a thought gets one from its action.
    expect(t.steps[0]!.plan).toBe('First I need to find where area is defined.');
    expect(t.steps[3]!.thought).toBeNull();
    expect(t.steps[3]!.plan).toBe('Finish and submit the result');
    expect(t.environment.workdir).toBe('/acme__widgets');
    expect(t.environment.repo).toBe('acme/widgets');
    expect(t.environment.tools.map((x) => x.name)).toEqual(['open', 'edit', 'submit']);
    expect(t.environment.tools[0]!.parameters).toMatchObject({ required: ['path'], properties: { line_number: { type: 'integer' } } });
    expect(t.metrics).toMatchObject({ cost_usd: 0.25, tokens_in: 1200, tokens_out: 80, api_calls: 4 });
    // `submitted` is what the agent did, not evidence that it worked.
    expect(t.outcome).toMatchObject({ exit_status: 'submitted', success: null, success_source: 'unknown' });
    expect(isProvenSuccess(t)).toBe(false);
  });

  it('function calling: tool_calls give tools and arguments, replay_config gives id, model and image', async () => {
    const { t } = await readOne('swe-agent-function-calling.traj');
    expect(t.task.instance_id).toBe('acme__widgets-13');
    expect(t.agent.model).toBe('gpt-4o');
    expect(t.environment).toMatchObject({ image: 'acme/widgets:13', base_commit: 'abc123', workdir: '/testbed' });
    expect(texts(t)).toEqual(['str_replace_editor view /testbed/src/widgets/geometry.py', 'python -m pytest -q tests/test_geometry.py', 'submit']);
    expect(t.steps[0]!.action).toMatchObject({ kind: 'tool_call', tool: 'str_replace_editor', args: { command: 'view', path: '/testbed/src/widgets/geometry.py' } });
    // Multi-line bash: the text is the first line, the full command stays in raw.
    expect(t.steps[1]!.action).toMatchObject({ kind: 'shell', tool: 'bash', raw: 'python -m pytest -q tests/test_geometry.py\necho done' });
    expect(t.steps[2]!.action.kind).toBe('finish');
    expect(t.steps.map((s) => s.observation)).toEqual(['1 import math', '1 failed', 'diff --git a/x b/x']);
  });
});

describe('mini-swe-agent', () => {
  it('1.1 document: fenced bash actions, <returncode> observations, THOUGHT stripped', async () => {
    const { t, format } = await readOne('acme__widgets-14.traj.json');
    expect(format).toBe('mini-swe-agent');
    expect(t.task.instance_id).toBe('acme__widgets-14');
    expect(t.task.goal).toBe('Consider the following PR description:\narea() must reject negative sides');
    expect(texts(t)).toEqual([
      'cat src/widgets/geometry.py',
      "sed -i 's/return side \\* side/if side < 0: raise ValueError(side)\\n    return side * side/' src/widgets/geometry.py && python -c 'import widgets'",
      'echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached',
    ]);
    expect(t.steps[0]!.thought).toBe('I should look at the geometry module first. It holds area().');
    expect(t.steps[0]!.plan).toBe('I should look at the geometry module first.');
    expect(t.steps[0]!.observation).toBe('def area(side):\n    return side * side');
    expect(t.steps.map((s) => s.obs_meta?.exit_code ?? null)).toEqual([0, 1, null]);
    expect(t.steps[2]!.action.kind).toBe('finish');
    expect(t.agent.model).toBe('claude-sonnet-4');
    expect(t.outcome).toMatchObject({ exit_status: 'Submitted', submission: 'diff --git a/g.py b/g.py\n', success: null, success_source: 'unknown' });
  });

  it('bare message list: the reply to the submit command is the submission', async () => {
    const { t } = await readOne('mini-bare-list.json');
    expect(t.task.instance_id).toBe('mini-bare-list');
    expect(t.task.goal).toBe('add a --version flag');
    expect(texts(t)).toEqual(['ls -la', 'echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT']);
    expect(t.outcome.submission).toBe('diff --git a/cli.py b/cli.py\n+--version\n');
  });
});

describe('OpenHands', () => {
  it('event stream: observations join actions by cause; system tools are kept; task_completed is only a self-report', async () => {
    const { t, codes } = await readOne('openhands-events.json');
    expect(texts(t)).toEqual(['wc -l notes.txt', 'str_replace_editor view /workspace/notes.txt', 'finish']);
    expect(t.task.goal).toBe('Count the lines in notes.txt');
    expect(t.steps[0]!.observation).toBe('42 notes.txt');
    expect(t.steps[0]!.obs_meta).toEqual({ exit_code: 0, ok: true });
    expect(t.steps[0]!.thought).toBe('I will count the lines with wc.');
    expect(t.steps[0]!.timestamp).toBe('2025-01-01T00:00:02');
    expect(t.steps[1]!.observation).toBe('line one');
    expect(t.environment.tools).toEqual([
      { name: 'execute_bash', description: 'Run a bash command', parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] } },
    ]);
    expect(t.agent.system_prompt).toBe('You are OpenHands agent.');
    expect(t.outcome).toMatchObject({ self_report: 'true', success: null, success_source: 'unknown', submission: 'The file has 42 lines.' });
    expect(codes).toEqual(['traj-unpaired-observation']);
  });

  it('output.jsonl rows: instance fields, the emitted tool-call arguments, in-row verdicts', async () => {
    const { all } = await readOne('openhands-output.jsonl');
    const [resolved, unknown] = all as [Trajectory, Trajectory];
    expect(resolved.source.line).toBe(1);
    expect(unknown.source.line).toBe(2);
    expect(resolved.task).toMatchObject({ instance_id: 'acme__widgets-20', goal: 'Fix area for negatives', code_language: 'python' });
    expect(resolved.environment).toMatchObject({ repo: 'acme/widgets', base_commit: 'def456' });
    expect(resolved.agent).toMatchObject({ model: 'openai/acme-llm', agent_class: 'CodeActAgent' });
    expect(texts(resolved)).toEqual(['pytest -q', 'str_replace_editor str_replace /workspace/acme/g.py', 'finish']);
    expect(resolved.steps[1]!.action.args).toEqual({ command: 'str_replace', path: '/workspace/acme/g.py', old_str: 'a', new_str: 'b' });
    // The error observation has no cause: it answers the latest action.
    expect(resolved.steps[1]!.observation).toBe("The file was edited.\nParameter 'command' is bad");
    expect(resolved.steps[1]!.obs_meta?.ok).toBe(false);
    expect(resolved.outcome).toMatchObject({ success: true, success_source: 'harness_report', submission: 'diff --git a/g.py b/g.py\n' });
    expect(resolved.metrics).toMatchObject({ cost_usd: 0.5, tokens_in: 1000, tokens_out: 50 });
    expect(unknown.outcome).toMatchObject({ success: null, success_source: 'unknown', self_report: 'partial' });
  });
});

describe('deep-research step lists', () => {
  it('APTBench rows (trajectory as a JSON string) are benchmark_construction successes', async () => {
    const { all, format } = await readOne('deep-research.jsonl');
    expect(format).toBe('deep-research-steps');
    const [aptbench, bare] = all as [Trajectory, Trajectory];
    expect(aptbench.domain).toBe('deep_research');
    expect(aptbench.traj_id).toBe('infodeepseek:dr-0001:ids_deepseek_lang_ddg-7');
    expect(aptbench.agent.model).toBe('deepseek');
    expect(aptbench.extra).toMatchObject({ search_engine: 'lang_ddg' });
    expect(texts(aptbench)).toEqual(['web_search tallest tower Tallinn', 'browse_website https://example.org/tv How tall is it?', 'task_complete']);
    expect(aptbench.steps[0]!.plan).toBe('Search for the tallest tower in Tallinn. Then check its height.');
    expect(aptbench.steps[2]).toMatchObject({ observation: null, action: { kind: 'finish' } });
    expect(aptbench.task).toMatchObject({ gold_answer: '314 metres', language: 'en' });
    expect(aptbench.outcome).toMatchObject({ success: true, success_source: 'benchmark_construction', submission: '314 m' });
    expect(isProvenSuccess(aptbench)).toBe(true);
    // Tools inferred from the calls when the row has no tool_set.
    expect(aptbench.environment.tools.find((x) => x.name === 'browse_website')?.parameters).toMatchObject({ properties: { question: { type: 'string' }, url: { type: 'string' } } });
    // A bare list without APTBench's gold fields proves nothing.
    expect(bare.outcome).toMatchObject({ success: null, success_source: 'unknown' });
    expect(bare.task.language).toBe('zh');
  });
});

describe('chat messages JSONL', () => {
  it('tool_calls pair with tool replies by id; labels are dataset labels; XML calls are parsed', async () => {
    const { all, codes } = await readOne('chat-messages.jsonl');
    const [a, b, c] = all as [Trajectory, Trajectory, Trajectory];
    expect(a.traj_id).toBe('chat:acme__widgets-30:run-a');
    expect(texts(a)).toEqual(["grep -rn 'def area' .", 'str_replace_editor view /repo/g.py', 'finish done']);
    expect(a.steps.map((s) => s.action.kind)).toEqual(['shell', 'tool_call', 'finish']);
    // Replies came back in the other order: pairing is by tool_call_id, not position.
    expect(a.steps[0]!.observation).toBe('./g.py:1:def area(side):');
    expect(a.steps[1]!.observation).toBe('1 def area(side):');
    expect(a.steps[0]!.thought).toBe('Let me find the function.');
    expect(a.steps[1]!.thought).toBeNull();
    expect(a.outcome).toMatchObject({ success: true, success_source: 'dataset_label' });
    expect(a.environment.tools.map((x) => x.name)).toEqual(['execute_bash']);
    expect(texts(b)).toEqual(['str_replace_editor view /repo/g.py', 'The fix is done.']);
    expect(b.steps[0]!.thought).toBe("I'll view the file.");
    expect(b.outcome).toMatchObject({ success: false, success_source: 'dataset_label' });
    // Unparseable arguments: kept verbatim, warned about, the record still accepted.
    expect(c.steps[0]!.action.args).toEqual({ raw: '{"command": "echo hi"' });
    expect(codes).toEqual(['traj-bad-tool-arguments']);
  });
});

describe('canonical JSONL', () => {
  it('reads back unchanged', async () => {
    const { readFileSync } = await import('node:fs');
    const { t, format } = await readOne('canonical.jsonl');
    expect(format).toBe('canonical-jsonl');
    expect(t).toEqual(JSON.parse(readFileSync(good('canonical.jsonl'), 'utf8').trim()));
    expect(t.domain).toBe('env_setup');
  });
});

describe('detection and --format', () => {
  it('every good fixture is detected with the expected format', async () => {
    const r = await readTrajectories(nodeVfs, [fixtures('trajectories', 'good')]);
    expect(Object.fromEntries(r.files.map((f) => [f.file.split('/').pop(), f.format]))).toEqual({
      'acme__widgets-12.traj': 'swe-agent-traj',
      'acme__widgets-14.traj.json': 'mini-swe-agent',
      'canonical.jsonl': 'canonical-jsonl',
      'chat-messages.jsonl': 'chat-messages-jsonl',
      'deep-research.jsonl': 'deep-research-steps',
      'mini-bare-list.json': 'mini-swe-agent',
      'openhands-events.json': 'openhands-events',
      'openhands-output.jsonl': 'openhands-output-jsonl',
      'swe-agent-function-calling.traj': 'swe-agent-traj',
    });
    expect(r.tally).toEqual({ read: 13, accepted: 13, rejected: 0 });
    const steps = r.trajectories.flatMap((t) => t.steps);
    expect(steps.every((s) => !/[\n\r]/.test(s.action.text) && s.action.text.length > 0)).toBe(true);
    expect(steps.every((s) => typeof s.plan === 'string' && s.plan.length > 0 && !s.plan.includes('\n'))).toBe(true);
  });

  it('a forced format that does not fit is a per-record finding', async () => {
    const r = await readTrajectories(nodeVfs, [good('chat-messages.jsonl')], { format: 'deep-research-steps' });
    expect(r.findings.map((f) => [f.code, f.path.line])).toEqual([
      ['traj-format-mismatch', 1],
      ['traj-format-mismatch', 2],
      ['traj-format-mismatch', 3],
    ]);
    expect(r.tally).toEqual({ read: 3, accepted: 0, rejected: 3 });
  });

  it('an unknown --format is refused before reading', async () => {
    await expect(readTrajectories(nodeVfs, [good('chat-messages.jsonl')], { format: 'nope' })).rejects.toThrow(/unknown format nope/);
  });

  it('--domain overrides what the readers infer; a row may carry its own domain', async () => {
    const r = await readTrajectories(nodeVfs, [good('acme__widgets-12.traj'), good('deep-research.jsonl')], { domain: 'env_setup' });
    expect(r.trajectories.map((t) => t.domain)).toEqual(['env_setup', 'env_setup', 'env_setup']);
    const vfs = new MemoryVfs({ '/r.jsonl': `${JSON.stringify({ id: 'e1', domain: 'env_setup', messages: [{ role: 'user', content: 'install it' }, { role: 'assistant', content: 'ok' }] })}\n` });
    expect((await readTrajectories(vfs, ['/r.jsonl'])).trajectories[0]!.domain).toBe('env_setup');
  });

  it('a trajectory without a task statement is kept with a warning', async () => {
    const vfs = new MemoryVfs({ '/r.jsonl': `${JSON.stringify({ id: 'g1', messages: [{ role: 'assistant', content: 'hello' }] })}\n` });
    const r = await readTrajectories(vfs, ['/r.jsonl']);
    expect(r.findings.map((f) => [f.code, f.severity, f.path.line, f.path.field])).toEqual([['traj-missing-goal', 'warning', 1, 'task.goal']]);
    expect(r.tally).toEqual({ read: 1, accepted: 1, rejected: 0 });
  });
});
