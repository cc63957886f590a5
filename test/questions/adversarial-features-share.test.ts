/**
 * The adversarial filter reads a share of a kind's draft features on another thread when one is
 * free (adversarial-thread.ts `featuresOffThread`). Here the "thread" is a function in this one:
 * whether the share is read there, read here because there is none, or read here after it failed,
 * the filter keeps and drops the same drafts and shows the same choices in the same order.
 */
import { describe, expect, it } from 'vitest';
import { Rng } from '../../generator/core/kernel/rng.js';
import type { Trajectory } from '../../generator/core/trajectories/types.js';
import { type CorePoster, type FeatureRunner, filterByTask, runInThread } from '../../generator/core/questions/adversarial-filter.js';
import { featuresOf } from '../../generator/core/questions/adversarial-inputs.js';
import type { QuestionDraft } from '../../generator/core/questions/types/module.js';

const WORDS = 'open read grep test patch config parser cache stream token header index value window'.split(' ');

/** 200 drafts (the least the filter shares) over 20 issues, each with candidates of several lengths and tools, so features differ. */
function entries(): Array<{ draft: QuestionDraft; t: Trajectory; id: string }> {
  const rng = new Rng('features-share');
  const phrase = (n: number) => Array.from({ length: n }, () => rng.pick(WORDS)).join(' ');
  return Array.from({ length: 200 }, (_, i) => {
    const t = { traj_id: `t${i}`, domain: 'swe', task: { instance_id: `issue-${i % 20}` } } as unknown as Trajectory;
    const candidates = Array.from({ length: 6 }, (_, k) => `${rng.pick(['bash', 'str_replace_editor'])} ${phrase(2 + rng.int(8) + k)}`);
    const gold = `bash ${phrase(3 + rng.int(6))}`;
    const draft: QuestionDraft = {
      kind: 'next_action_mcq',
      step: 1,
      fields: { goal: phrase(12) },
      history: [{ plan: phrase(5), action: `bash ${phrase(3)}`, observation: phrase(20) } as QuestionDraft['history'][number]],
      answerStem: 'Answer: (',
      answerSuffix: ')',
      offeredTools: ['bash', 'str_replace_editor'],
      mcq: {
        choices: [gold, ...candidates.slice(0, 3)],
        gold: 0,
        sources: ['gold', 'borrowed_step', 'borrowed_step', 'entity_swap'],
        alternatives: candidates.map((text, k) => ({ text, source: k % 2 ? 'borrowed_step' : 'entity_swap', reason: `reason ${k}` })),
      },
    };
    return { draft, t, id: `next_action_mcq.${i}` };
  });
}

async function filtered(features: FeatureRunner | undefined, rendered: boolean, post?: CorePoster) {
  const list = entries();
  const started = await filterByTask(list, {
    seed: 's',
    taskOf: () => 'task',
    renderDraft: (d) => (rendered ? { prompt: `Goal: ${String(d.fields.goal)}\nChoices:\n${d.mcq!.choices.join('\n')}\nAnswer: (`, questionStart: 0 } : null),
    features,
    post,
  });
  const dropped = await started.dropped;
  return list.map((e) => (dropped.has(e.draft) ? `dropped: ${dropped.get(e.draft)}` : JSON.stringify(e.draft.mcq)));
}

describe('adversarial filter features read on two threads', () => {
  it('keeps, drops and shows the same whether a share is read elsewhere, here, or here after a failure', async () => {
    for (const rendered of [false, true]) {
      const here = await filtered(undefined, rendered);
      // Both outcomes occur, so the comparison covers drops and rewritten choices alike.
      expect(here.some((r) => r.startsWith('dropped'))).toBe(true);
      expect(here.some((r) => !r.startsWith('dropped'))).toBe(true);
      let asked = 0;
      const elsewhere = await filtered((inputs) => {
        asked += inputs.length;
        return Promise.resolve(structuredClone(inputs).map(featuresOf));
      }, rendered);
      expect(asked).toBe(100);
      expect(elsewhere).toEqual(here);
      if (!rendered) continue;
      expect(await filtered(() => null, rendered)).toEqual(here);
      expect(await filtered(() => Promise.reject(new Error('worker failed')), rendered)).toEqual(here);
    }
  });

  it('runs the cores on the thread they are posted to, from its own copy, and here again when it fails', async () => {
    const here = await filtered(undefined, true);
    // The "worker" runs a clone of what was posted one turn later, after the build's thread has let
    // go of its cores: were they still needed here, or changed by the release, the results would differ.
    let posted = 0;
    const elsewhere = await filtered(undefined, true, (tasks) => {
      posted += tasks.reduce((n, t) => n + t.drafts.length, 0);
      const copy = structuredClone(tasks);
      return new Promise((resolve) => setImmediate(resolve)).then(() => runInThread(copy));
    });
    expect(posted).toBeGreaterThan(150);
    expect(elsewhere).toEqual(here);
    // A worker that fails after the release: the plans are made again and run here.
    expect(await filtered(undefined, true, () => new Promise((_, reject) => setImmediate(() => reject(new Error('worker failed')))))).toEqual(here);
    // No worker at all.
    expect(await filtered(undefined, true, () => null)).toEqual(here);
  });
});
