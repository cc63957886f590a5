/**
 * Hand-made deep-research-style MCQ sets with one planted shortcut each (or none), for the
 * shortcut-rule tests. Options are `{"planning", "execution": {"name", "args"}}` as the builder
 * and APTBench render them; prompts have an instruction, two shots and the scored question, so
 * rules that must ignore the shots are tested against shots that would mislead them.
 */
import { Rng } from '../../generator/core/kernel/rng.js';
import type { McqQuestion } from '../../generator/core/questions/types.js';
import { mcq } from './build.js';

export type Plant = 'none' | 'copy' | 'off_tool' | 'similar' | 'relevance' | 'length' | 'letter' | 'copy+off_tool';

const VOCAB = Array.from({ length: 400 }, (_, i) => `w${i.toString(36)}x`);
const K = 4;

const step = (planning: string, tool: string, text: string) =>
  JSON.stringify({ planning, execution: { name: tool, args: tool === 'browse_website' ? { url: `https://e.org/${text.split(' ')[0]}`, question: text } : { text } } });

const toolList = (tools: string[]) => `Tool set:\n${tools.map((t, i) => `(${i + 1}) ${JSON.stringify({ name: t })}`).join('\n')}\n`;

function render(question: string, history: string[], tools: string[], choices: string[], answer?: number): string {
  const listed = choices.map((c, i) => `(${String.fromCharCode(65 + i)}) ${c}`).join('\n');
  return `Question: ${question}\nExecuted trajectory:\n${history.map((h, i) => `Step ${i + 1}: ${h}\nObservation: result ${i}`).join('\n')}\n${toolList(tools)}Choices of next step:\n${listed}\nThe correct next step should be (${answer === undefined ? '' : `${String.fromCharCode(65 + answer)})`}`;
}

export interface PlantedOptions {
  n?: number;
  seed?: string;
  /** Record `question_start` and `build.offered_tools` (new builds) or leave them to be derived (old files). */
  recorded?: boolean;
  /** Mark off-tool distractors as declared `invalid_tool` in `build.choice_sources`. */
  declareInvalidTool?: boolean;
}

export function plantedSet(plant: Plant, options: PlantedOptions = {}): McqQuestion[] {
  const n = options.n ?? 200;
  const rng = new Rng(`planted/${plant}/${options.seed ?? '0'}`);
  const words = (r: Rng, count: number, pool: readonly string[] = VOCAB) => Array.from({ length: count }, () => r.pick(pool)).join(' ');
  const out: McqQuestion[] = [];
  for (let i = 0; i < n; i++) {
    const r = rng.fork(`q${i}`);
    const topic = Array.from({ length: 8 }, (_, j) => `topic${i}t${j}`);
    const question = `What about ${topic.slice(0, 4).join(' ')}?`;
    const history = [step(`Search ${topic.slice(0, 3).join(' ')}`, 'web_search', topic.slice(0, 3).join(' ')), step(`Look up ${words(r, 3)}`, 'web_search', words(r, 3))];
    const tools = ['web_search', 'browse_website', 'task_complete'];
    const gold = plant === 'letter' ? 0 : r.int(K);
    // Symmetric by default: every option drawn by the same process, so no rule has a cue.
    const choices = Array.from({ length: K }, () => {
      const text = words(r, 3 + r.int(3));
      return step(`Search ${text}`, r.pick(['web_search', 'browse_website']), text);
    });
    const sources: string[] = choices.map((_, j) => (j === gold ? 'gold' : 'symmetric'));
    const distractors = choices.map((_, j) => j).filter((j) => j !== gold);
    if (plant === 'copy' || plant === 'copy+off_tool') {
      // Two of three distractors repeat earlier steps of the trajectory.
      choices[distractors[0]!] = history[0]!;
      choices[distractors[1]!] = history[1]!;
    }
    if (plant === 'off_tool' || plant === 'copy+off_tool') {
      const targets = plant === 'off_tool' ? distractors.slice(0, 2) : distractors.slice(2);
      for (const j of targets) {
        const text = words(r, 4);
        choices[j] = step(`Open ${text}`, 'open_website', text);
        sources[j] = options.declareInvalidTool ? 'invalid_tool' : 'wrong_tool';
      }
    }
    if (plant === 'similar') {
      // Distractors are the gold with one word replaced: the gold is the centre of the options.
      const base = words(r, 6).split(' ');
      choices[gold] = step(`Search ${base.join(' ')}`, 'web_search', base.join(' '));
      for (const j of distractors) {
        const changed = [...base];
        changed[r.int(changed.length)] = `alt${i}d${j}`;
        choices[j] = step(`Search ${changed.join(' ')}`, 'web_search', changed.join(' '));
      }
    }
    if (plant === 'relevance') {
      // Only the gold is about the question; the shots mention the distractors' words, which must not count.
      const text = topic.slice(2, 5 + r.int(3)).join(' ');
      choices[gold] = step(`Search ${text}`, 'web_search', text);
    }
    if (plant === 'length') choices[gold] = step(`Search ${words(r, 12)}`, 'web_search', words(r, 12));
    const instructions = 'Given the question, the trajectory so far and candidate next steps, pick the most reasonable step.\n\n';
    // Shots talk about the options' words but never repeat an option: on the relevance plant only
    // the distractors' words (the rule must not count them), elsewhere every option's, so that
    // "the option whose words the examples show" is no cue of its own.
    const talkedOf = plant === 'relevance' ? distractors : choices.map((_, j) => j);
    const distractorWords = talkedOf.map((j) => JSON.parse(choices[j]!).planning as string).join(' ');
    const shots = [0, 1]
      .map((s) => {
        const cs = Array.from({ length: K }, () => {
          const text = words(r, 4);
          return step(`Check ${text}`, 'web_search', text);
        });
        return `${render(`Shot ${s}: ${distractorWords}`, [], tools, cs, s)}\n\n`;
      })
      .join('');
    const head = instructions + shots;
    const prompt = head + render(question, history, tools, choices);
    out.push(
      mcq({
        id: `planted-${plant.replace('+', '_')}-${String(i).padStart(4, '0')}`,
        // Named by the set, not by a counter shared by every test: the adversary deals folds by
        // trajectory, so the same planted set gets the same folds whatever ran before it.
        provenance: { traj_id: `planted-${plant}-${options.seed ?? '0'}-${i}`, source_path: 'planted.jsonl', source_line: null, step: 1, framework: 'deep-research' },
        kind: 'dr_plan_mcq',
        task: `aptpace_dr_plan_mcq`,
        prompt,
        answer_stem: 'The correct next step should be (',
        choices,
        gold,
        ...(options.recorded ? { question_start: head.length } : {}),
        build: { seed: 's', template: 'dr_plan_mcq', choice_sources: sources, ...(options.recorded ? { offered_tools: tools } : {}) },
      }),
    );
  }
  return out;
}
