/**
 * One hand-made trajectory (or small set) per defect class of issue 9. Invented content; the
 * builder must handle each the way the issue asks, and the old builder fails each test.
 */
import type { Step, Trajectory } from '../../generator/core/trajectories/types.js';

type StepIn = { thought?: string | null; plan?: string | null; tool: string; args: Record<string, unknown>; text?: string; kind?: Step['action']['kind']; obs?: string | null };

export function traj(id: string, domain: Trajectory['domain'], goal: string, steps: StepIn[], extra: Partial<Trajectory> & { framework?: string; tools?: Trajectory['environment']['tools']; answer?: string } = {}): Trajectory {
  return {
    schema_version: 'traj/1',
    traj_id: `validity:${id}:0`,
    domain,
    source: { framework: extra.framework ?? 'validity', format: 'canonical-jsonl', path: `${id}.jsonl`, line: 1, license: 'MIT', repo: extra.source?.repo ?? null },
    task: { instance_id: id, goal, language: 'en', gold_answer: extra.answer ?? null },
    environment: { tools: extra.tools ?? [], repo: extra.source?.repo ?? null },
    agent: {},
    steps: steps.map((s, index) => ({
      index,
      thought: s.thought ?? null,
      plan: s.plan ?? null,
      action: { kind: s.kind ?? (s.tool === 'bash' ? 'shell' : s.tool === 'task_complete' || s.tool === 'submit' ? 'finish' : 'tool_call'), tool: s.tool, args: s.args, text: s.text ?? (s.tool === 'bash' ? String(s.args.command) : `${s.tool} ${JSON.stringify(s.args)}`) },
      observation: s.obs ?? null,
    })),
    outcome: { success: true, success_source: 'harness_report', submission: extra.answer ?? null },
    metrics: {},
  } as Trajectory;
}

const search = (plan: string, text: string, obs: string): StepIn => ({ plan, tool: 'web_search', args: { text }, obs });
const browse = (plan: string, url: string, question: string, obs: string): StepIn => ({ plan, tool: 'browse_website', args: { url, question }, obs });
const finish = (plan = 'Indicate task completion as the answer has been found.'): StepIn => ({ plan, tool: 'task_complete', args: {}, obs: null });

/** Deep-research runs on related questions (shared people and places) plus one unrelated run. */
export function researchCorpus(): Trajectory[] {
  const opts = { framework: 'deep-research' };
  return [
    traj('dr-appleton', 'deep_research', 'Where did the physicist Edward Appleton study before joining King\'s College London?', [
      search('Search for the education of Edward Appleton.', 'Edward Appleton education', 'title: Edward Appleton - Wikipedia\nbody: Appleton studied at St John\'s College, Cambridge under Ernest Rutherford. He later worked with Miles Barnett.\nurl: https://en.wikipedia.org/wiki/Edward_Appleton'),
      browse('Browse the Wikipedia page of Edward Appleton to confirm where he studied.', 'https://en.wikipedia.org/wiki/Edward_Appleton', 'Where did Edward Appleton study?', 'Appleton was educated at Bradford College and St John\'s College, Cambridge.'),
      search('Search for Miles Barnett and Edward Appleton at Cambridge to cross-check the college.', 'Miles Barnett Edward Appleton Cambridge 1924', 'title: Barnett and Appleton 1924\nbody: In 1924 Appleton and Barnett measured the ionosphere.\nurl: https://example.org/ionosphere-1924'),
      finish(),
    ], { ...opts, answer: "St John's College, Cambridge" }),
    traj('dr-rutherford', 'deep_research', 'Which university did Ernest Rutherford lead as Cavendish Professor after leaving Manchester?', [
      search('Search for Ernest Rutherford Cavendish Professor.', 'Ernest Rutherford Cavendish Professor', 'title: Ernest Rutherford\nbody: In 1919 Rutherford became Cavendish Professor at the University of Cambridge, succeeding J. J. Thomson. The Plumian Professor and the Jacksonian Professor also taught there.\nurl: https://en.wikipedia.org/wiki/Ernest_Rutherford'),
      browse('Browse the Ernest Rutherford page to confirm the year he moved to Cambridge.', 'https://en.wikipedia.org/wiki/Ernest_Rutherford', 'When did Rutherford move to Cambridge?', 'Rutherford moved from Manchester to Cambridge in 1919.'),
      search('Search for the list of Cavendish Professors at Cambridge to verify the succession.', 'Cavendish Professor list Cambridge Thomson Rutherford', 'title: Cavendish Professor of Physics\nbody: Thomson 1884, Rutherford 1919, Bragg 1938.\nurl: https://en.wikipedia.org/wiki/Cavendish_Professor_of_Physics'),
      finish(),
    ], { ...opts, answer: 'University of Cambridge' }),
    traj('dr-baseball', 'deep_research', 'In which town was the baseball pitcher Hezekiah Allen born in 1863?', [
      search('Search for the birthplace of Hezekiah Allen the baseball pitcher.', 'Hezekiah Allen baseball birthplace 1863', 'title: Hezekiah Allen\nbody: Hezekiah Allen (1863-1916) was a pitcher born in Westport, Connecticut. He pitched in New Haven and Long Island, and scouts saw him in New York.\nurl: https://example.org/allen'),
      browse('Browse the Hezekiah Allen page to confirm his birthplace.', 'https://example.org/allen', 'Where was Hezekiah Allen born?', 'He was born in Westport, Connecticut, on 14 May 1863 and retired in 1890.'),
      search('Search for Westport Connecticut baseball players born in 1863 to cross-check.', 'Westport Connecticut baseball players 1863', 'title: Players born in Westport\nbody: Hezekiah Allen, pitcher.\nurl: https://example.org/westport'),
      finish(),
    ], { ...opts, answer: 'Westport, Connecticut' }),
  ];
}

/** Two rows of one run, the second a longer prefix of the first (APTBench prefix rows). */
export function prefixRows(): Trajectory[] {
  const [a] = researchCorpus();
  const shorter = { ...a!, traj_id: 'validity:dr-appleton-prefix:0', task: { ...a!.task, instance_id: 'dr-appleton-prefix' }, steps: a!.steps.slice(0, 3) };
  return [a!, shorter];
}

/** The words of `text` that differ from `base`'s after their common head and tail (word by word): where, what stood there, what stands now. */
export function changedWords(base: string, text: string): { at: number; from: string; to: string } {
  const b = base.split(' ');
  const t = text.split(' ');
  let head = 0;
  while (head < b.length && b[head] === t[head]) head++;
  let tail = 0;
  while (tail < b.length - head && tail < t.length - head && b[b.length - 1 - tail] === t[t.length - 1 - tail]) tail++;
  return { at: head, from: b.slice(head, b.length - tail).join(' '), to: t.slice(head, t.length - tail).join(' ') };
}
