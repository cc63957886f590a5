import { describe, expect, it } from 'vitest';
import { auditQuestions } from '../../generator/core/questions/audit/index.js';
import { findToolList, optionTool, questionSegment, segmentStart } from '../../generator/core/questions/audit/segment.js';
import { completion, mcq } from './build.js';
import { plantedSet } from './planted.js';

const errorsOf = (qs: Parameters<typeof auditQuestions>[0]) => auditQuestions(qs).findings.filter((f) => f.severity === 'error');

describe('question segment and offered tools, derived when not recorded', () => {
  it('the segment starts after the last shot; the whole prompt when there are no shots; question_start wins when recorded', () => {
    const stem = 'The answer is (';
    const prompt = `Intro.\n\nQ1 …\n${stem}B)\n\nQ2 …\n${stem}A)\n\nScored question\n(A) x\n(B) y\n${stem}`;
    expect(segmentStart({ prompt, answer_stem: stem })).toEqual({ start: prompt.indexOf('Scored'), source: 'after-shots' });
    expect(segmentStart({ prompt: `Scored\n(A) x\n(B) y\n${stem}`, answer_stem: stem })).toEqual({ start: 0, source: 'whole-prompt' });
    expect(segmentStart({ prompt, answer_stem: stem, question_start: 7 })).toEqual({ start: 7, source: 'field' });
  });

  it('reads tool names from a `Tool set:` list (JSON lines, APTBench\'s indented form) and options\' tools from their structure', () => {
    const listed = findToolList('Question: q\nTool set: \n    (1) {"name": "web_search", "description": "x"}\n    (2) {"name": "browse_website"}\nChoices of next step:\n');
    expect(listed?.names).toEqual(['web_search', 'browse_website']);
    expect(findToolList('no tools here')).toBeNull();
    expect(optionTool('{"planning": "p", "execution": {"name": "web_search", "args": {}}}')).toBe('web_search');
    expect(optionTool('{"name": "str_replace_editor", "arguments": {}}')).toBe('str_replace_editor');
    expect(optionTool('<function=bash>\n<parameter=command>ls</parameter>')).toBe('bash');
    // Plain text (a plan, a shell command) names no tool: never judged off-tool.
    expect(optionTool('I need to open setup.py')).toBeNull();
    expect(optionTool('ls -la')).toBeNull();
  });

  it('an option that begins another is found on its own line: not read as copied from the prompt (a seed-6 env_setup_error_mcq FAILed so)', () => {
    const choices = ['mkdir -p /workspace/pony/src', 'mkdir -p /workspace/pony/src/build_release', 'mkdir -p /workspace/pony/build/build_release', 'mkdir -p /workspace/pony/lib'];
    const q = mcq({ prompt: `The command failed: cd: can't cd to /workspace/pony/build/build_release\nChoices:\n${choices.map((c, i) => `(${String.fromCharCode(65 + i)}) ${c}`).join('\n')}\nThe command that fixes the error is (`, choices, gold: 2, answer_stem: 'The command that fixes the error is (' });
    expect(questionSegment(q).context).not.toContain(choices[0]);
    expect(errorsOf([q]).map((f) => f.code)).not.toContain('audit-option-copied');
    // The same option shown in the history is still a copy.
    const shown = mcq({ ...q, id: 'shown', prompt: `Earlier: ${choices[0]}\n${q.prompt}` });
    expect(errorsOf([shown]).map((f) => f.code)).toContain('audit-option-copied');
  });

  it('a shell tool in the offered set makes every command on-tool; recorded offered_tools win over the listed ones', () => {
    const choices = ['{"name": "grep_tool"}', '{"name": "bash"}'];
    const q = mcq({ prompt: `Tool set:\n(1) {"name": "bash"}\nChoices:\n(A) ${choices[0]}\n(B) ${choices[1]}\nThe correct next step is (`, choices, gold: 1 });
    expect(questionSegment(q).offeredTools).toEqual(new Set(['bash']));
    expect(errorsOf([q]).map((f) => f.code)).not.toContain('audit-undeclared-invalid-tool');
    const recorded = { ...q, build: { ...q.build, offered_tools: ['grep_tool'] } };
    expect(questionSegment(recorded).toolsSource).toBe('field');
    // Now the gold (bash) is the one not offered: a warning about the tool set, not a distractor defect.
    expect(auditQuestions([recorded]).findings.map((f) => f.code)).toContain('audit-gold-tool-not-offered');
  });
});

describe('deterministic defects fail whatever the statistics', () => {
  it('a distractor copied from the history is an error even in a single question', () => {
    const [q] = plantedSet('copy', { n: 1 });
    const found = errorsOf([q!]).filter((f) => f.code === 'audit-option-copied');
    expect(found).toHaveLength(1);
    expect(found[0]!.args).toMatchObject({ options: 2, questions: 1, total: 1 });
  });

  it('a short option found in the prompt is not a copy (`ls` in a history is not a copy)', () => {
    const q = mcq({ prompt: 'Step 1: ls\nChoices:\n(A) ls\n(B) pwd\n', choices: ['pwd', 'ls'], gold: 0 });
    expect(errorsOf([q]).map((f) => f.code)).not.toContain('audit-option-copied');
  });

  it('an off-tool distractor is an error unless declared invalid_tool, which is counted', () => {
    const undeclared = plantedSet('off_tool', { n: 4 });
    const declared = plantedSet('off_tool', { n: 4, declareInvalidTool: true });
    expect(errorsOf(undeclared).filter((f) => f.code === 'audit-undeclared-invalid-tool').map((f) => f.args.options)).toEqual([8]);
    const audit = auditQuestions(declared);
    expect(audit.findings.map((f) => f.code)).not.toContain('audit-undeclared-invalid-tool');
    expect(audit.report.tasks[0]!.defects).toMatchObject({ declaredInvalidTools: 8, undeclaredInvalidTools: 0 });
  });

  it('a question set without defects raises none (the symmetric planted set)', () => {
    const { report } = auditQuestions(plantedSet('none'));
    expect(report.tasks[0]!.defects).toEqual({ copiedOptions: 0, undeclaredInvalidTools: 0, declaredInvalidTools: 0, goldToolNotOffered: 0 });
  });
});

describe('near-duplicates: the same (trajectory prefix, gold) asked several times', () => {
  it('is one finding per group with its count, even when distractors, shots and the tool list differ', () => {
    const base = plantedSet('none', { n: 3 });
    const twin = plantedSet('none', { n: 3, seed: 'other' });
    // Same scored question text and gold as base[0], but other distractors, shots and an extra listed tool.
    const q0 = base[0]!;
    const gold = q0.choices[q0.gold]!;
    const segment = q0.prompt.slice(segmentStart(q0).start);
    const prefix = segment.slice(0, segment.indexOf('Tool set:'));
    const otherChoices = [gold, ...twin[1]!.choices.slice(1)];
    const listed = otherChoices.map((c, i) => `(${String.fromCharCode(65 + i)}) ${c}`).join('\n');
    const copies = [0, 1, 2].map((k) =>
      mcq({
        id: `dup-${k}`,
        task: q0.task,
        prompt: `Shot ${k}\nThe correct next step should be (A)\n\n${prefix}Tool set:\n(1) {"name": "web_search"}\n${k ? '(2) {"name": "browse_website"}\n' : ''}Choices of next step:\n${listed}\nThe correct next step should be (`,
        answer_stem: 'The correct next step should be (',
        choices: otherChoices,
        gold: 0,
      }),
    );
    const { findings, report } = auditQuestions([...base, ...copies]);
    const near = findings.filter((f) => f.code === 'audit-near-duplicate');
    expect(near.map((f) => [f.args.count, f.args.ids])).toEqual([[4, ['dup-0', 'dup-1', 'dup-2', q0.id].sort()]]);
    expect(report.tasks[0]!.nearDuplicates).toEqual({ groups: 1, extra: 3, distinct: 3 });
    // The exact-duplicate check alone would not have seen them: the prompts differ.
    expect(findings.map((f) => f.code)).not.toContain('audit-duplicate-question');
  });

  it('completions with the same question text and target are near-duplicates too', () => {
    const a = completion({ prompt: 'Shot\nThe answer is [x]\n\nQuestion: q\nThe answer is [', answer_stem: 'The answer is [', targets: ['Paris'] });
    const b = completion({ prompt: 'Other shot\nThe answer is [y]\n\nQuestion: q\nThe answer is [', answer_stem: 'The answer is [', targets: ['Paris'] });
    const c = completion({ prompt: 'Other shot\nThe answer is [y]\n\nQuestion: q2\nThe answer is [', answer_stem: 'The answer is [', targets: ['Paris'] });
    expect(auditQuestions([a, b, c]).findings.filter((f) => f.code === 'audit-near-duplicate').map((f) => f.args.count)).toEqual([2]);
  });
});
