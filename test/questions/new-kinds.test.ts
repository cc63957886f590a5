import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { MemoryVfs } from '../../generator/core/kernel/memory-vfs.js';
import { multiSelectBaselines } from '../../generator/core/questions/audit/multi-select.js';
import { type BuildResult, buildQuestions } from '../../generator/core/questions/build.js';
import { errorFixPairs } from '../../generator/core/questions/operators/setup-errors.js';
import { callKey } from '../../generator/core/questions/operators/tool-call-format.js';
import { mentions } from '../../generator/core/questions/types/dr-citation-ms.js';
import { languageOf, questionLanguage } from '../../generator/core/questions/build-keys.js';
import { readQuestions } from '../../generator/core/questions/read-questions.js';
import type { McqQuestion, MultiSelectQuestion, Question } from '../../generator/core/questions/types.js';
import type { Trajectory } from '../../generator/core/trajectories/types.js';
import { fixtures } from '../helpers/env.js';

const NEW_KINDS = ['env_setup_error_mcq', 'issue_fix_tool_call_tc', 'dr_citation_ms'] as const;

function load(file: string): Trajectory[] {
  return readFileSync(fixtures('new-kinds', file), 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as Trajectory);
}
const all = [...load('setup-errors.jsonl'), ...load('tool-calls.jsonl'), ...load('dr-citations.jsonl')];
const byTraj = (r: BuildResult, id: string) => r.questions.filter((q) => q.provenance.traj_id === id);
const segment = (q: Question) => q.prompt.slice(q.question_start ?? 0);
const zhOf = (r: BuildResult) => byTraj(r, 'fx:dr-zh:0')[0];

let result: BuildResult;
beforeAll(async () => {
  result = await buildQuestions(all, { seed: 'nk', kinds: [...NEW_KINDS] });
});

describe('env_setup_error_mcq', () => {
  it('pairs a failed setup command with the later command that removed its error, and only then', () => {
    const [parsekit, imgtool, logsink, grpcbox, quiet] = load('setup-errors.jsonl');
    expect(errorFixPairs(parsekit!).pairs.map((p) => [p.failed, p.fix, p.cls, p.fixCommand])).toEqual([[2, 4, 'missing_module', 'pip install lxml']]);
    expect(errorFixPairs(imgtool!).pairs.map((p) => [p.failed, p.fix, p.cls])).toEqual([[1, 3, 'missing_system_package']]);
    expect(errorFixPairs(logsink!).pairs.map((p) => [p.fix, p.fixCommand])).toEqual([[2, 'mkdir -p /repo/var/log/logsink']]);
    // `pip install grpc` succeeded but the same error came back: not a fix.
    expect(errorFixPairs(grpcbox!)).toEqual({ pairs: [], errors: 2 });
    expect(errorFixPairs(quiet!)).toEqual({ pairs: [], errors: 0 });
    expect(result.skipped['env_setup_error_mcq:no-verified-fix']).toBe(1);
    // The quiet run and the two tool-call (SWE) fixtures have no setup error.
    expect(result.skipped['env_setup_error_mcq:no-setup-error']).toBe(3);
  });

  it('asks with seven options: the fix as gold, six reasoned distractors none of which is in the prompt or from the future', () => {
    const qs = result.questions.filter((q): q is McqQuestion => q.kind === 'env_setup_error_mcq');
    expect(qs.map((q) => q.choices[q.gold]).sort()).toEqual(['apt-get install -y libpng-dev', 'mkdir -p /repo/var/log/logsink', 'pip install lxml']);
    for (const q of qs) {
      const t = all.find((x) => x.traj_id === q.provenance.traj_id)!;
      expect(q.choices).toHaveLength(7);
      expect(q.build.choice_sources).toHaveLength(7);
      expect(q.build.choice_reasons).toHaveLength(7);
      q.choices.forEach((c, i) => {
        if (i === q.gold) {
          expect(q.build.choice_reasons![i]).toBe('');
          return;
        }
        expect(q.build.choice_reasons![i]).not.toBe('');
        // Not in the prompt before the options (history, tool list, shots), nor after the fix.
        expect(q.prompt.slice(0, q.prompt.lastIndexOf('\nChoices:\n')).includes(c)).toBe(false);
        const future = t.steps.slice(q.provenance.step! + 1).map((s) => `${s.action.text}\n${s.observation ?? ''}`).join('\n');
        expect(future.includes(c)).toBe(false);
      });
      expect(q.build.offered_tools).toEqual(['bash']);
      expect(q.language).toBe('en');
      expect(segment(q).startsWith('Request: A setup command failed.')).toBe(true);
      expect(segment(q)).toContain(`The command of step ${t.steps.findIndex((s) => s.obs_meta?.exit_code && s.obs_meta.exit_code !== 0) + 1} failed with:`);
    }
  });
});

describe('issue_fix_tool_call_tc', () => {
  it('writes function-calling targets as JSON and command targets in the agent syntax', () => {
    const oh = byTraj(result, 'fx:acme__widgets-12:0').filter((q) => q.kind === 'issue_fix_tool_call_tc');
    const targets = oh.map((q) => (q.format === 'completion' ? q.targets[0] : '')).sort();
    expect(targets).toEqual([
      '{"name":"execute_bash","arguments":{"command":"grep -n min_width -r /workspace/widgets/widgets"}}',
      '{"name":"execute_bash","arguments":{"command":"python -m pytest /workspace/widgets/tests -q"}}',
      '{"name":"str_replace_editor","arguments":{"command":"view","path":"/workspace/widgets/widgets/core.py"}}',
    ]);
    // Step 3 repeats step 1's call: it could be copied from the prompt, so it is no anchor.
    expect(oh.map((q) => q.provenance.step)).not.toContain(3);
    for (const q of oh) {
      expect(segment(q)).toContain('Call: {"name":"execute_bash","arguments":{"command":"ls /workspace/widgets"}}');
      expect(q.answer_stem).toBe('Next call: ');
      expect(q.build.offered_tools).toEqual(['execute_bash', 'str_replace_editor']);
    }
    const swe = byTraj(result, 'fx:acme__dates-7:0');
    // The multi-line edit is skipped; the rest are command lines.
    expect(swe.map((q) => (q.format === 'completion' ? q.targets[0] : ''))).toEqual(['open src/dates.py 40', 'python -m pytest tests/test_dates.py -q']);
    expect(result.skipped['issue_fix_tool_call_tc:multi-line-call']).toBeUndefined(); // anchors were found, so ineligible steps are not counted
  });

  it('compares calls by name and normalised arguments, as the emitted scorer does', () => {
    const gold = '{"name":"str_replace_editor","arguments":{"command":"view","path":"/a/b.py"}}';
    expect(callKey('{"arguments": {"path": "/a/b.py",  "command": "view"}, "name": "str_replace_editor"}', 'json')).toBe(callKey(gold, 'json'));
    expect(callKey('{"function": {"name": "str_replace_editor", "arguments": "{\\"command\\": \\"view\\", \\"path\\": \\"/a/b.py\\"}"}}', 'json')).toBe(callKey(gold, 'json'));
    expect(callKey('{"name":"str_replace_editor","arguments":{"command":"view","path":"/a/c.py"}}', 'json')).not.toBe(callKey(gold, 'json'));
    expect(callKey('not json', 'json')).toBeNull();
    expect(callKey('open "src/dates.py"  40', 'command')).toBe(callKey('open src/dates.py 40', 'command'));
    expect(callKey('open src/dates.py 41', 'command')).not.toBe(callKey('open src/dates.py 40', 'command'));
  });
});

describe('dr_citation_ms', () => {
  it('selects every observation whose shown text states the answer, and skips runs where none or all do', () => {
    const [kelly] = byTraj(result, 'fx:dr-kelly:0') as MultiSelectQuestion[];
    expect(kelly!.format).toBe('multi_select');
    // Observations are shown in a seeded order; the golds are the two that name Kelly
    // ("Howard Atwood  Kelly" with two spaces still counts), wherever they land.
    const goldTexts = kelly!.golds.map((g) => kelly!.choices[g]!.replace(/^Observation \d+: /, '')).sort();
    expect(goldTexts).toEqual(['browse_website {"question": "Was Kelly a gynecologist?", "url": "https://example.org/kelly"}', 'web_search {"text": "Big Four founding professors Johns Hopkins"}']);
    expect(kelly!.targets).toEqual([kelly!.golds.map((g) => g + 1).join(', ')]);
    kelly!.choices.forEach((c, i) => expect(c.startsWith(`Observation ${i + 1}: `)).toBe(true));
    expect(kelly!.build.choice_sources).toEqual(kelly!.choices.map((_, i) => (kelly!.golds.includes(i) ? 'gold' : 'unsupported_observation')));
    expect(kelly!.build.choice_reasons).toEqual(kelly!.choices.map((_, i) => (kelly!.golds.includes(i) ? '' : 'its text does not state the answer')));
    expect(kelly!.build.offered_tools).toEqual(['browse_website', 'web_search']);
    // The answer is what the model has to find: neither the question nor its examples state it.
    expect(kelly!.prompt).not.toMatch(/Final answer|最终答案/);
    expect(zhOf(result)!.prompt).not.toMatch(/Final answer|最终答案/);
    expect(result.skipped['dr_citation_ms:no-evidence']).toBe(1);
    expect(result.skipped['dr_citation_ms:all-evidence']).toBe(1);
    const [zh] = byTraj(result, 'fx:dr-zh:0') as MultiSelectQuestion[];
    expect(zh!.golds.map((g) => zh!.choices[g]!.replace(/^Observation \d+: /, '')).sort()).toEqual(['web_search {"text": "爱因斯坦 生平"}', 'web_search {"text": "相对论 提出者"}']);
    expect(zh!.language).toBe('zh');
    expect(kelly!.language).toBe('en');
  });

  it('counts a mention only as a whole word or number, ignoring case, width and punctuation', () => {
    expect(mentions('A comparison of cities', 'Paris')).toBe(false);
    expect(mentions('It opened in 19680 BC', '1968')).toBe(false);
    expect(mentions('Capital: PARIS.', 'Paris')).toBe(true);
    expect(mentions('made by Fiat Automobiles S.p.A, Turin', 'Fiat Automobiles S.p.A.')).toBe(true);
    expect(mentions('相对论由阿尔伯特·爱因斯坦在1905年提出', '阿尔伯特·爱因斯坦')).toBe(true);
    expect(mentions('anything', '...')).toBe(false);
  });

  it('tells languages apart by CJK share', () => {
    expect(languageOf('哪位科学家提出了相对论？')).toBe('zh');
    expect(languageOf('Who proposed relativity? 爱因斯坦')).toBe('en');
    expect(languageOf('')).toBe('en');
    // The template a trajectory is asked in follows the same rule as the label.
    const asked = (goal: string) => {
      const { language: _given, ...task } = all[0]!.task;
      return questionLanguage({ ...all[0]!, task: { ...task, goal } } as Trajectory);
    };
    expect(asked('Who proposed relativity? 爱因斯坦')).toBe('en');
    expect(asked('哪位科学家提出了相对论？')).toBe('zh');
  });

  it('reads back valid multi-select questions and rejects bad golds with file, line and field', async () => {
    const good = result.questions.filter((q) => q.format === 'multi_select');
    const bad = (over: Partial<MultiSelectQuestion>) => JSON.stringify({ ...good[0], ...over });
    const text = [
      ...good.map((q) => JSON.stringify(q)),
      bad({ golds: [0, 9], targets: ['1, 10'] }),
      bad({ golds: [2, 0], targets: ['3, 1'] }),
      bad({ golds: [0], targets: ['1, 3'] }),
      bad({ golds: [] }),
    ].join('\n');
    const r = await readQuestions(new MemoryVfs({ 'q.jsonl': `${text}\n` }), ['q.jsonl']);
    expect(r.questions).toHaveLength(good.length);
    const problems = r.findings.filter((f) => f.severity === 'error');
    expect(problems.map((f) => [f.code, f.path.line, f.path.field])).toEqual([
      ['question-golds-invalid', good.length + 1, 'golds'],
      ['question-golds-invalid', good.length + 2, 'golds'],
      ['question-golds-invalid', good.length + 3, 'targets'],
      ['question-schema', good.length + 4, 'golds'],
    ]);
  });
});

describe('the new kinds together', () => {
  it('builds every new kind from the fixtures, schema-valid, with question_start at the scored block', () => {
    expect(new Set(result.questions.map((q) => q.kind))).toEqual(new Set(NEW_KINDS));
    expect(result.findings.filter((f) => f.severity === 'error')).toEqual([]);
    for (const q of result.questions) {
      expect(q.question_start).toBeGreaterThan(0);
      // A Chinese trajectory's question is asked with the Chinese template.
      expect(q.prompt.slice(q.question_start!).startsWith(q.language === 'zh' ? '请求：' : 'Request: ')).toBe(true);
      expect(q.prompt.endsWith(q.answer_stem)).toBe(true);
      expect(q.build.offered_tools?.length).toBeGreaterThan(0);
    }
  });

  it('is deterministic whatever the input order', async () => {
    const again = await buildQuestions([...all].reverse(), { seed: 'nk', kinds: [...NEW_KINDS] });
    expect(JSON.stringify(again.questions)).toBe(JSON.stringify(result.questions));
  });

  it('gives the same ids when unrelated trajectories are added', async () => {
    const alone = await buildQuestions(load('dr-citations.jsonl'), { seed: 'nk', kinds: [...NEW_KINDS] });
    const together = new Set(result.questions.map((q) => q.id));
    for (const q of alone.questions) expect(together.has(q.id)).toBe(true);
  });
});

describe('multi-select baselines', () => {
  const q = (id: string, k: number, golds: number[], split: 'test' | 'fewshot' = 'test') =>
    ({ ...result.questions.find((x) => x.format === 'multi_select')!, id, task: 't_ms', split, choices: Array.from({ length: k }, (_, i) => `Observation ${i + 1}`), golds, targets: [golds.map((g) => g + 1).join(', ')] }) as MultiSelectQuestion;

  it('finds a planted "first option" shortcut and scores the other rules by hand', () => {
    const set = [q('a', 3, [0]), q('b', 4, [0]), q('c', 2, [0]), q('d', 5, [0]), q('e', 3, [1, 2], 'fewshot')];
    const [b] = multiSelectBaselines(set);
    expect(b!.questions).toBe(4); // the few-shot question is not scored
    expect(b!.rules.first_only).toEqual({ setMatch: 1, f1: 1 });
    // select all: F1 = 2·1/(k+1) for k = 3, 4, 2, 5 → (0.5 + 0.4 + 2/3 + 1/3) / 4.
    expect(b!.rules.select_all.setMatch).toBe(0);
    expect(b!.rules.select_all.f1).toBeCloseTo((0.5 + 0.4 + 2 / 3 + 1 / 3) / 4, 12);
    expect(b!.rules.last_only).toEqual({ setMatch: 0, f1: 0 });
    // chance: mean of 1/(2^k − 1) = (1/7 + 1/15 + 1/3 + 1/31) / 4.
    expect(b!.chanceSetMatch).toBeCloseTo((1 / 7 + 1 / 15 + 1 / 3 + 1 / 31) / 4, 12);
  });

  /** A citation question whose prompt is `lines`, observations numbered in order. */
  const cite = (id: string, question: string, bodies: string[], golds: number[], language: 'en' | 'zh' = 'en') => {
    const prompt = `Question: ${question}\nNumbered observations:\n${bodies.map((b, i) => `Observation ${i + 1} (after web_search):\n${b}\n`).join('')}Observations that state the answer: [`;
    return { ...q(id, bodies.length, golds), language, prompt, question_start: 0 } as MultiSelectQuestion;
  };

  it('guesses the unstated answer as the phrase the observations repeat, and the page nearest the question', () => {
    const set = [
      // "Howard Kelly" is in two of three observations and not in the question: the guess.
      cite('k', 'Who founded the gynecology department?', ['Howard Kelly led it from 1889.', 'Unrelated page about weather.', 'In 1889 Howard Kelly arrived.'], [0, 2]),
      // The page sharing the most question words is the second one.
      cite('p', 'When did the Paris Observatory open?', ['Weather in Lyon.', 'The Paris Observatory opened in 1671 under Louis XIV.', 'Observatory list: Greenwich, Lyon.'], [1]),
    ];
    const [b] = multiSelectBaselines(set);
    // shared_phrase: question k → {0, 2} (right); question p → "lyon" is in 1 and 3 → {0, 2} (wrong).
    expect(b!.rules.shared_phrase.setMatch).toBe(0.5);
    // question_overlap: k → the 1889 pages share no question word (ties → first: {0}, wrong); p → {1} (right).
    expect(b!.rules.question_overlap.setMatch).toBe(0.5);
    expect(b!.rules.answer_mention.setMatch).toBe(0); // no "Final answer:" line to read
  });

  it('gates each language of a task on its own: a cue only the Chinese questions carry is found', async () => {
    const { auditQuestions } = await import('../../generator/core/questions/audit/index.js');
    const en = Array.from({ length: 6 }, (_, i) => cite(`en${i}`, `Which year ${i}?`, ['alpha beta', 'gamma delta', 'epsilon zeta'], [i % 3]));
    const zh = Array.from({ length: 6 }, (_, i) => cite(`zh${i}`, '长城修建于哪一年', ['天气很好', '长城修建于公元前七世纪', '今天下雨'], [1], 'zh'));
    const { findings, report } = auditQuestions([...en, ...zh]);
    const task = report.tasks.find((t) => t.task === 't_ms')!;
    expect(task.multiSelectLanguages.map((l) => [l.language, l.questions])).toEqual([['en', 6], ['zh', 6]]);
    expect(task.multiSelectLanguages[1]!.rules.question_overlap.setMatch).toBe(1);
    const small = findings.filter((f) => f.code === 'audit-multi-select-rule-small' && f.args.rule === 'question_overlap');
    expect(small.map((f) => f.args.language ?? 'all')).toContain('zh');
  });
});
