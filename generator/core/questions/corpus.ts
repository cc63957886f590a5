import type { Domain, Trajectory } from '../trajectories/types.js';
import { goalKey as normalisedGoal } from './build-keys.js';
import { entityTokens } from './context.js';
import { changedFiles, normalisePatch } from './diff.js';

export interface PatchRef {
  traj_id: string;
  patch: string;
  /** normalisePatch(patch), computed once. */
  key: string;
}

export interface StepRef {
  trajectory: Trajectory;
  step: number;
}

/** The successful patch of a trajectory: its submission when it is a diff, else the dataset's gold patch. */
export function fixPatchOf(t: Trajectory): string | null {
  const submission = t.outcome.submission;
  if (submission && /^(diff --git|--- )/m.test(submission) && /^@@/m.test(submission)) return submission;
  const gold = t.task.gold_patch;
  return gold && /^@@/m.test(gold) ? gold : null;
}

export function testPatchOf(t: Trajectory): string | null {
  const p = t.task.gold_test_patch;
  return p && /^@@/m.test(p) ? p : null;
}

/** The same trajectory, or another run on the same task (same instance or the same goal text). */
export function sameTask(a: Trajectory, b: Trajectory): boolean {
  if (a.traj_id === b.traj_id || a.task.instance_id === b.task.instance_id) return true;
  // The same issue or question filed under another instance id: its steps are valid alternatives, not distractors.
  const goal = goalKey(a);
  return goal !== '' && goal === goalKey(b);
}

const goalKeys = new WeakMap<Trajectory, string>();

/** A goal compared without case, spacing or punctuation (computed once per trajectory: `sameTask` runs for every pair a build compares). */
function goalKey(t: Trajectory): string {
  let key = goalKeys.get(t);
  if (key === undefined) goalKeys.set(t, (key = normalisedGoal(t.task.goal)));
  return key;
}

function repoOf(t: Trajectory): string | null {
  return t.environment.repo ?? t.source.repo ?? null;
}

/**
 * Cross-trajectory lookups for negative sampling, built once per build. Lists keep
 * trajectory order (the caller sorts trajectories), so sampling from them is deterministic.
 */
export class CorpusIndex {
  private readonly byDomain = new Map<Domain, StepRef[]>();
  private readonly byRepo = new Map<string, StepRef[]>();
  private readonly fixPatches = new Map<string, PatchRef[]>();
  private readonly testPatches = new Map<string, PatchRef[]>();
  private readonly filesByRepo = new Map<string, Set<string>>();
  /** Similarity search: bottom-k sketch tokens per trajectory, and capped postings per (domain, token). */
  private readonly sketches = new Map<string, string[]>();
  /** Positions in `trajectories`. */
  private readonly postings = new Map<string, number[]>();
  private counts = new Int32Array(0);
  /** Content hash inputs: what distractors may be drawn from, per domain (provenance, not ids). */
  private readonly members = new Map<Domain, string[]>();
  /** Every kind asks for the same trajectory's neighbours: computed once per trajectory. */
  private readonly similarCache = new WeakMap<Trajectory, Trajectory[]>();

  constructor(readonly trajectories: readonly Trajectory[]) {
    for (const [at, t] of trajectories.entries()) {
      const sketch = sketchOf(t);
      this.sketches.set(t.traj_id, sketch);
      for (const tok of sketch) {
        const key = `${t.domain}\u0000${tok}`;
        const list = this.postings.get(key) ?? [];
        // A token shared by very many trajectories says little about similarity; its list stops growing.
        if (list.length < POSTING_CAP) list.push(at);
        this.postings.set(key, list);
      }
      push(this.members as Map<string, string[]>, t.domain, t.traj_id);
      const repo = repoOf(t) ?? '';
      const domainList = this.byDomain.get(t.domain) ?? [];
      const repoList = this.byRepo.get(repo) ?? [];
      t.steps.forEach((_, i) => {
        domainList.push({ trajectory: t, step: i });
        if (repo) repoList.push({ trajectory: t, step: i });
      });
      this.byDomain.set(t.domain, domainList);
      if (repo) this.byRepo.set(repo, repoList);
      const fix = fixPatchOf(t);
      if (fix) {
        const ref = { traj_id: t.traj_id, patch: fix, key: normalisePatch(fix) };
        if (repo) push(this.fixPatches, repo, ref);
        push(this.fixPatches, '*', ref);
        const files = this.filesByRepo.get(repo) ?? new Set<string>();
        for (const f of changedFiles(fix)) files.add(f);
        this.filesByRepo.set(repo, files);
      }
      const test = testPatchOf(t);
      if (test) {
        const ref = { traj_id: t.traj_id, patch: test, key: normalisePatch(test) };
        if (repo) push(this.testPatches, repo, ref);
        push(this.testPatches, '*', ref);
      }
    }
  }

  /**
   * Up to `limit` other trajectories of the same domain most like `t` (shared sketch tokens:
   * files, identifiers, entities, tools of the goal and actions), best first, never another
   * run on the same task. Cost is bounded by sketch size × posting cap, not corpus size.
   */
  similar(t: Trajectory, limit = SIMILAR_LIMIT): Trajectory[] {
    const cached = this.similarCache.get(t);
    if (cached && limit === SIMILAR_LIMIT) return cached;
    // Shared tokens counted per trajectory position in a reused array (a Map per call cost more
    // than the rest of the search); only the positions touched are read and reset.
    if (this.counts.length < this.trajectories.length) this.counts = new Int32Array(this.trajectories.length);
    const counts = this.counts;
    const touched: number[] = [];
    for (const tok of this.sketches.get(t.traj_id) ?? sketchOf(t)) {
      for (const at of this.postings.get(`${t.domain}\u0000${tok}`) ?? []) {
        const seen = counts[at]!;
        if (seen === 0) touched.push(at);
        counts[at] = seen + 1;
      }
    }
    // Best first is most shared tokens, then lowest id. The touched positions are bucketed by
    // their count and only the buckets that reach `limit` are sorted and checked for the same task:
    // most positions share a token or two and are never looked at again.
    const byCount: number[][] = [];
    for (const at of touched) {
      (byCount[counts[at]!] ??= []).push(at);
      counts[at] = 0;
    }
    const found: Trajectory[] = [];
    for (let shared = byCount.length - 1; shared > 0 && found.length < limit; shared--) {
      const bucket = byCount[shared];
      if (!bucket) continue;
      const others = bucket.map((at) => this.trajectories[at]!).sort((a, b) => (a.traj_id < b.traj_id ? -1 : 1));
      for (const o of others) {
        if (found.length >= limit) break;
        if (!sameTask(o, t)) found.push(o);
      }
    }
    if (limit === SIMILAR_LIMIT) this.similarCache.set(t, found);
    return found;
  }

  /** Sorted trajectory ids of a domain: hashed into `build.corpus`. */
  domainMembers(domain: Domain): readonly string[] {
    return this.members.get(domain) ?? [];
  }

  stepsByDomain(domain: Domain): readonly StepRef[] {
    return this.byDomain.get(domain) ?? [];
  }

  stepsByRepo(t: Trajectory): readonly StepRef[] {
    const repo = repoOf(t);
    return repo ? (this.byRepo.get(repo) ?? []) : [];
  }

  /**
   * Patches to borrow from: the same repository's when it has another trajectory, else all.
   * Unfiltered (the caller skips its own) so that a draw costs O(1) on large corpora.
   */
  patches(t: Trajectory, which: 'fix' | 'test'): readonly PatchRef[] {
    const map = which === 'fix' ? this.fixPatches : this.testPatches;
    const same = map.get(repoOf(t) ?? '') ?? [];
    return same.some((p) => p.traj_id !== t.traj_id) ? same : (map.get('*') ?? []);
  }

  /** Files other successful patches of the same repository change. */
  repoFiles(t: Trajectory): string[] {
    return [...(this.filesByRepo.get(repoOf(t) ?? '') ?? [])].sort();
  }
}

const SKETCH_SIZE = 48;
const GOAL_STOP = new Set('where which what there their about after before during under other these those would could should since while whose being between first years'.split(' '));
const POSTING_CAP = 256;
const SIMILAR_LIMIT = 8;

/** FNV-1a, 32 bit: a fast, stable token hash for bottom-k sketches. */
function fnv(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/** The trajectory's SKETCH_SIZE name-like tokens of least hash (a MinHash bottom-k sketch). */
function sketchOf(t: Trajectory): string[] {
  const text = [t.task.goal, t.environment.repo ?? t.source.repo ?? '', ...t.steps.slice(0, 40).map((s) => `${s.action.tool ?? ''} ${s.action.text.slice(0, 400)}`)].join('\n');
  const tokens = entityTokens(text, 2000);
  for (const w of (t.task.goal.toLowerCase().match(/[a-z\u00c0-\u024f]{5,}|[\u3400-\u9fff]{2}/gu) ?? [])) if (!GOAL_STOP.has(w)) tokens.add(w);
  return [...tokens].map((w) => ({ w, h: fnv(w) })).sort((a, b) => a.h - b.h || (a.w < b.w ? -1 : 1)).slice(0, SKETCH_SIZE).map((x) => x.w);
}

function push<T>(map: Map<string, T[]>, key: string, value: T) {
  const list = map.get(key) ?? [];
  list.push(value);
  map.set(key, list);
}
