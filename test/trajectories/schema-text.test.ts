import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { validateTrajectory } from '../../generator/core/trajectories/read.js';
import { pointerToField } from '../../generator/core/trajectories/schema.js';
import { canonicalActionText, derivePlan, detectLanguage, extractGoal, firstLine, repoFromInstanceId } from '../../generator/core/trajectories/text.js';
import { parseClassicAction, parseSweAgentCommands, splitCommandLine } from '../../generator/core/trajectories/readers/swe-agent-traj.js';
import { firstInvalidUtf8 } from '../../generator/core/trajectories/read.js';
import { fixtures } from '../helpers/env.js';

const canonical = () => JSON.parse(readFileSync(fixtures('trajectories', 'good', 'canonical.jsonl'), 'utf8').trim());

describe('schema', () => {
  it('accepts the hand-written canonical record', () => {
    expect(validateTrajectory(canonical())).toEqual([]);
  });

  it('names the field of each violation', () => {
    const t = canonical();
    t.domain = 'cooking';
    t.steps[1].action.kind = 'dance';
    t.steps[0].obs_meta.exit_code = 'zero';
    delete t.source.license;
    t.outcome.success_source = 'harness_report';
    t.outcome.success = null;
    const found = validateTrajectory(t, { file: 'x.jsonl', line: 4 });
    expect(found.map((f) => f.path.field).sort()).toEqual(['domain', 'outcome.success', 'source.license', 'steps[0].obs_meta.exit_code', 'steps[1].action.kind']);
    expect(found.every((f) => f.code === 'traj-schema-invalid' && f.path.file === 'x.jsonl' && f.path.line === 4)).toBe(true);
  });

  it('turns JSON pointers into dotted fields', () => {
    expect(pointerToField('/steps/3/action/text')).toBe('steps[3].action.text');
    expect(pointerToField('')).toBe('');
    expect(pointerToField('/a~1b/0')).toBe('a/b[0]');
  });
});

describe('canonical text', () => {
  it('one clean line per action', () => {
    expect(firstLine('\n\n  \tcd /repo && ls\r\nsecond')).toBe('cd /repo && ls');
    expect(canonicalActionText('shell', 'bash', { command: "cat <<'EOF' > x.py\nprint(1)\nEOF" })).toBe("cat <<'EOF' > x.py");
    expect(canonicalActionText('tool_call', 'str_replace_editor', { command: 'view', path: '/testbed/x.py', view_range: [1, 20] })).toBe('str_replace_editor view /testbed/x.py');
    expect(canonicalActionText('tool_call', 'web_search', { text: 'tallest tower', thought: 'ignored' })).toBe('web_search tallest tower');
    expect(canonicalActionText('tool_call', 'lookup', { ids: [1, 2], deep: true })).toBe('lookup [1,2] true');
    expect(canonicalActionText('finish', 'task_complete', {})).toBe('task_complete');
    expect(canonicalActionText('message', null, { content: 'Done.\nBye' })).toBe('Done.');
  });

  it('plans: first sentence of the thought, or a description of the action', () => {
    expect(derivePlan('THOUGHT: Open the file. Then edit it.', 'tool_call', 'open', 'open x.py')).toBe('Open the file.');
    expect(derivePlan('先搜索。再浏览。', 'tool_call', 'web_search', 'web_search x')).toBe('先搜索。');
    expect(derivePlan('no full stop here', 'shell', 'bash', 'ls')).toBe('no full stop here');
    expect(derivePlan(null, 'shell', 'bash', 'ls -la')).toBe('Run `ls -la`');
    expect(derivePlan('  ', 'tool_call', 'web_search', 'web_search x')).toBe('Call web_search: web_search x');
    const long = derivePlan(`${'word '.repeat(60)}end.`, 'shell', 'bash', 'ls');
    expect(long.length).toBeLessThanOrEqual(201);
    expect(long.endsWith('…')).toBe(true);
  });

  it('goals are unwrapped from framework prompts', () => {
    expect(extractGoal('ISSUE:\nBug here\n\nINSTRUCTIONS:\ndo it')).toBe('Bug here');
    expect(extractGoal('x <pr_description>\nPR text\n</pr_description> y')).toBe('PR text');
    expect(extractGoal('Please solve this issue: it breaks\n\nYou can execute bash commands and edit files.')).toBe('it breaks');
    expect(extractGoal('  plain question? ')).toBe('plain question?');
  });

  it('language and repository heuristics', () => {
    expect(detectLanguage('How tall is the tower?')).toBe('en');
    expect(detectLanguage('塔林最高的塔有多高？')).toBe('zh');
    expect(detectLanguage('東京タワーの高さは？')).toBe('ja');
    expect(detectLanguage('In which year did 齐溪 marry?')).toBe('en');
    expect(repoFromInstanceId('django__django-11099')).toBe('django/django');
    expect(repoFromInstanceId('marshmallow-code__marshmallow-1867')).toBe('marshmallow-code/marshmallow');
    expect(repoFromInstanceId('dr-0001')).toBeNull();
  });

  it('finds the first invalid UTF-8 byte', () => {
    expect(firstInvalidUtf8(new TextEncoder().encode('héllo → 世界 🙂'))).toBe(-1);
    expect(firstInvalidUtf8(new Uint8Array([0x61, 0xc3, 0x28]))).toBe(1);
    expect(firstInvalidUtf8(new Uint8Array([0x61, 0x62, 0xe2, 0x82]))).toBe(2); // cut-off sequence
    expect(firstInvalidUtf8(new Uint8Array([0xc0, 0x80]))).toBe(0); // overlong
    expect(firstInvalidUtf8(new Uint8Array([0xed, 0xa0, 0x80]))).toBe(0); // surrogate
  });
});

describe('SWE-agent command parsing', () => {
  const prompt = `COMMANDS:
goto:
  docstring: moves the window to show <line_number>
  signature: goto <line_number>
  arguments:
    - line_number (integer) [required]: the line number to move the window to

search_dir:
  docstring: searches for search_term in all files in dir
  signature: search_dir <search_term> [<dir>]
  arguments:
    - search_term (string) [required]: the term to search for
    - dir (string) [optional]: the directory to search in

RESPONSE FORMAT:
`;
  it('reads tool specs from the system prompt', () => {
    const tools = parseSweAgentCommands(prompt);
    expect(tools.map((t) => t.name)).toEqual(['goto', 'search_dir']);
    expect(tools[1]).toEqual({
      name: 'search_dir',
      description: 'searches for search_term in all files in dir',
      parameters: {
        type: 'object',
        properties: { search_term: { type: 'string', description: 'the term to search for' }, dir: { type: 'string', description: 'the directory to search in' } },
        required: ['search_term'],
        'x-order': ['search_term', 'dir'],
        'x-signature': 'search_dir <search_term> [<dir>]',
      },
    });
  });

  it('binds positional words, keeps quoting, treats unknown words as bash', () => {
    const tools = parseSweAgentCommands(prompt);
    expect(splitCommandLine(`search_dir "def area" 'src dir'`)).toEqual(['search_dir', 'def area', 'src dir']);
    expect(parseClassicAction('search_dir "def area" src\n', tools)).toMatchObject({ kind: 'tool_call', tool: 'search_dir', args: { search_term: 'def area', dir: 'src' }, text: 'search_dir "def area" src' });
    expect(parseClassicAction('python -m pytest\n', tools)).toEqual({ kind: 'shell', tool: 'bash', args: { command: 'python -m pytest' }, raw: 'python -m pytest' });
    expect(parseClassicAction('submit', tools)).toMatchObject({ kind: 'finish', tool: 'submit' });
  });
});
