/**
 * `CorpusIndex.similar` against a brute-force reference that counts every other trajectory's
 * shared sketch tokens (through the same capped postings) and sorts all of them: best first by
 * shared tokens, then by id, never a run on the same task. The corpus is made of a ten-word
 * vocabulary so that counts tie, posting lists fill to their cap and same-goal runs sit among
 * the best.
 */
import { describe, expect, it } from 'vitest';
import { Rng } from '../../generator/core/kernel/rng.js';
import { CorpusIndex, sameTask } from '../../generator/core/questions/corpus.js';
import type { Trajectory } from '../../generator/core/trajectories/types.js';
import { traj } from './validity-fixtures.js';

const WORDS = 'Alpha Bravo Charlie Delta Echo Foxtrot Golf Hotel India Juliett'.split(' ');

function corpus(n: number): Trajectory[] {
  const rng = new Rng('similar-reference');
  const out: Trajectory[] = [];
  for (let i = 0; i < n; i++) {
    const pick = () => Array.from({ length: 2 + rng.int(4) }, () => rng.pick(WORDS)).join(' ');
    // Every seventh run repeats an earlier goal under another instance id: the same task, never a neighbour.
    const goal = i % 7 === 6 ? out[i - 3]!.task.goal : `Find ${pick()} and ${pick()}`;
    const steps = Array.from({ length: 3 }, () => ({ tool: 'web_search', args: { text: pick() } }));
    out.push(traj(`t${String((i * 7919) % n).padStart(4, '0')}`, 'deep_research', goal, steps));
  }
  return out;
}

/** The reference: every trajectory's count of the query's sketch tokens whose capped posting lists name it, sorted in full. */
function reference(index: CorpusIndex, t: Trajectory, limit: number): string[] {
  const internals = index as unknown as { sketches: Map<string, string[]>; postings: Map<string, number[]> };
  const counts = new Map<number, number>();
  for (const tok of internals.sketches.get(t.traj_id)!) for (const at of internals.postings.get(`${t.domain}\u0000${tok}`) ?? []) counts.set(at, (counts.get(at) ?? 0) + 1);
  return [...counts]
    .map(([at, shared]) => ({ o: index.trajectories[at]!, shared }))
    .filter(({ o }) => !sameTask(o, t))
    .sort((a, b) => b.shared - a.shared || (a.o.traj_id < b.o.traj_id ? -1 : 1))
    .slice(0, limit)
    .map(({ o }) => o.traj_id);
}

describe('similar trajectories', () => {
  const trajectories = corpus(600);
  const index = new CorpusIndex(trajectories);

  it('are the reference ranking: most shared sketch tokens, then lowest id, never the same task', () => {
    let ties = 0;
    for (const t of trajectories) {
      for (const limit of [1, 3, 8, 40]) {
        const got = (limit === 8 ? index.similar(t) : index.similar(t, limit)).map((o) => o.traj_id);
        expect(got, `${t.traj_id} limit ${limit}`).toEqual(reference(index, t, limit));
      }
      const found = index.similar(t);
      expect(found.some((o) => sameTask(o, t))).toBe(false);
      if (found.length === 8) ties++;
    }
    // The corpus exercises full lists and same-goal runs among the candidates.
    expect(ties).toBeGreaterThan(500);
    expect(trajectories.filter((t) => trajectories.some((o) => o !== t && sameTask(o, t))).length).toBeGreaterThan(100);
  });
});
