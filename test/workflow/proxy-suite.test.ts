import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildProxySuite } from '../../generator/core/workflow/proxy-suite.js';
import { harnessEnv, hasLmEval, inCi, lmEval, repoRoot } from '../helpers/env.js';
import { tempDir } from '../helpers/tmp.js';
import { readSuite } from '../helpers/suite.js';

const suiteDir = path.join(repoRoot, 'dist-tasks', 'aptpace_fixtures');

const ids = (task: string) => readFileSync(path.join(suiteDir, 'data', `${task}.test.jsonl`), 'utf8').trim().split('\n').map((l) => JSON.parse(l).id as string);

describe('proxy-only suite', () => {
  const planIds = ids('aptpace_swe_plan_mcq');
  const drIds = ids('aptpace_dr_answer');
  const proxy = new Map([
    ['aptpace_swe_plan_mcq', new Set([planIds[1]!, planIds[4]!])],
    ['aptpace_dr_answer', new Set([drIds[0]!])],
    ['aptpace_gone', new Set(['x'])],
  ]);
  const built = buildProxySuite({ files: readSuite(suiteDir), proxy });

  it('keeps exactly the proxy documents byte for byte, drops tasks without any, and reports proxies it cannot find', () => {
    expect(built.kept).toEqual([
      { task: 'aptpace_dr_answer', documents: 1, of: drIds.length },
      { task: 'aptpace_swe_plan_mcq', documents: 2, of: planIds.length },
    ]);
    expect(built.missing).toEqual(['aptpace_gone/x']);
    const full = readFileSync(path.join(suiteDir, 'data', 'aptpace_swe_plan_mcq.test.jsonl'), 'utf8').trim().split('\n');
    expect(built.files.get('data/aptpace_swe_plan_mcq.test.jsonl')).toBe(`${full[1]}\n${full[4]}\n`);
    expect(built.files.has('aptpace_env_setup_plan_mcq.yaml')).toBe(false);
    expect(built.files.get('utils.py')).toBe(readFileSync(path.join(suiteDir, 'utils.py'), 'utf8'));
    // The SWE subgroup keeps its proxy task and loses the task without proxy documents; the top
    // group still lists both area subgroups (each still has a task).
    const swe = built.files.get('_aptpace_fixtures_swe.yaml')!;
    expect(swe).toMatch(/aptpace_swe_plan_mcq/);
    expect(swe).not.toMatch(/aptpace_env_setup_plan_mcq/);
    expect(built.files.get('_aptpace_fixtures.yaml')!).toMatch(/aptpace_fixtures_swe[\s\S]*aptpace_fixtures_dr/);
    // Proxies in SWE tasks only: the deep-research subgroup empties and leaves the top group too.
    const sweOnly = buildProxySuite({ files: readSuite(suiteDir), proxy: new Map([['aptpace_swe_plan_mcq', new Set([planIds[0]!])]]) });
    expect(sweOnly.files.has('_aptpace_fixtures_dr.yaml')).toBe(false);
    expect(sweOnly.files.get('_aptpace_fixtures.yaml')!).not.toMatch(/aptpace_fixtures_dr/);
  });

  it.skipIf(!hasLmEval && !inCi)('runs in the real harness on the proxy documents only, with the full suite\'s doc hashes', () => {
    const dir = tempDir();
    const proxyDir = path.join(dir, 'proxy');
    for (const [file, text] of built.files) {
      mkdirSync(path.dirname(path.join(proxyDir, file)), { recursive: true });
      writeFileSync(path.join(proxyDir, file), text);
    }
    const run = (include: string, out: string, extra: string[] = []) => {
      const r = spawnSync(lmEval, ['--model', 'dummy', '--model_args', 'pretrained=ckpt', '--include_path', include, '--tasks', 'aptpace_fixtures', '--log_samples', '--output_path', out, '--seed', '1', ...extra], { cwd: dir, env: harnessEnv, encoding: 'utf8', timeout: 600_000 });
      expect(r.status, r.stderr.slice(-3000)).toBe(0);
      const modelDir = path.join(out, 'ckpt');
      const samples = new Map<string, Array<{ id: string; hash: string }>>();
      for (const f of readdirSync(modelDir).filter((n) => n.startsWith('samples_'))) {
        const task = f.replace(/^samples_/, '').replace(/_\d{4}-.*$/, '');
        samples.set(task, readFileSync(path.join(modelDir, f), 'utf8').trim().split('\n').map((l) => JSON.parse(l)).map((s) => ({ id: s.doc.id, hash: s.doc_hash })));
      }
      return samples;
    };
    const proxyRun = run(proxyDir, path.join(dir, 'runs-proxy'));
    expect([...proxyRun.keys()].sort()).toEqual(['aptpace_dr_answer', 'aptpace_swe_plan_mcq']);
    expect(proxyRun.get('aptpace_swe_plan_mcq')!.map((s) => s.id).sort()).toEqual([planIds[1]!, planIds[4]!].sort());
    const fullRun = run(suiteDir, path.join(dir, 'runs-full'));
    const fullHash = new Map(fullRun.get('aptpace_swe_plan_mcq')!.map((s) => [s.id, s.hash]));
    for (const s of proxyRun.get('aptpace_swe_plan_mcq')!) expect(s.hash).toBe(fullHash.get(s.id));
  }, 600_000);
});
