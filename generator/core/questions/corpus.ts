import type { Domain, Trajectory } from '../trajectories/types.js';
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
  return a.traj_id === b.traj_id || a.task.instance_id === b.task.instance_id || (a.task.goal.trim() !== '' && a.task.goal.trim() === b.task.goal.trim());
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

  constructor(readonly trajectories: readonly Trajectory[]) {
    for (const t of trajectories) {
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

function push<T>(map: Map<string, T[]>, key: string, value: T) {
  const list = map.get(key) ?? [];
  list.push(value);
  map.set(key, list);
}
