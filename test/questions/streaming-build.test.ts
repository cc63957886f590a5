/**
 * `build` hands each kind's questions over as soon as the kind is built (bounded memory): the
 * streamed questions, their file and their audit must be exactly those of a whole-set build.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeVfs } from '../../generator/core/kernel/node-vfs.js';
import { stableStringify } from '../../generator/core/kernel/stable-json.js';
import { buildQuestions } from '../../generator/core/questions/build.js';
import { auditQuestions } from '../../generator/core/questions/audit/index.js';
import type { Question } from '../../generator/core/questions/types.js';
import { readTrajectories } from '../../generator/core/trajectories/read.js';
import { cli } from '../helpers/cli.js';
import { fixtures } from '../helpers/env.js';
import { tempDir } from '../helpers/tmp.js';

const inputs = [fixtures('trajectories', 'good'), fixtures('ctf')];

describe('streamed build', () => {
  it('hands over every kind once, in order, keeps nothing, and equals the whole-set build', async () => {
    const read = await readTrajectories(nodeVfs, inputs, { reports: [fixtures('trajectories', 'reports', 'instance-verdicts.json')] });
    const options = { seed: 'stream', tokenizer: 'chars' as const, includeUnproven: true };
    const whole = await buildQuestions(read.trajectories, options);
    const batches: Question[][] = [];
    const streamed = await buildQuestions(read.trajectories, { ...options, onQuestions: (b) => void batches.push(b) });
    expect(whole.questions.length).toBeGreaterThan(20);
    expect(streamed.questions).toEqual([]);
    expect(streamed.count).toBe(whole.count);
    expect(batches.flat().map((q) => stableStringify(q))).toEqual(whole.questions.map((q) => stableStringify(q)));
    const filled = batches.filter((b) => b.length > 0);
    expect(filled.length).toBeGreaterThan(3);
    // Each batch is one kind, and no task spans two batches (the audit runs batch by batch).
    const taskBatch = new Map<string, number>();
    filled.forEach((b, i) => {
      expect(new Set(b.map((q) => q.kind)).size).toBe(1);
      for (const q of b) {
        expect(taskBatch.get(q.task) ?? i).toBe(i);
        taskBatch.set(q.task, i);
      }
    });
  });

  it('the CLI file and audit equal a whole-file audit of the same questions (findings name the same records)', async () => {
    const out = path.join(tempDir('aptpace-stream-'), 'q.jsonl');
    const r = await cli('build', ...inputs, '--report', fixtures('trajectories', 'reports', 'instance-verdicts.json'), '--include-unproven', '--seed', 'stream', '--out', out, '--json');
    expect(r.json, r.stderr).toBeDefined();
    const lines = readFileSync(out, 'utf8').trim().split('\n');
    const questions = lines.map((l) => JSON.parse(l) as Question);
    expect(r.json.data.questions).toBe(questions.length);
    const audit = auditQuestions(questions, {});
    const key = (f: any) => `${f.code}|${f.path?.record ?? ''}|${JSON.stringify(f.args)}`;
    const auditCodes = (fs: any[]) => fs.filter((f) => f.code.startsWith('audit-')).map(key).sort();
    expect(auditCodes(r.json.findings)).toEqual(auditCodes(audit.findings));
    expect(auditCodes(audit.findings).length).toBeGreaterThan(0);
    expect(r.json.data.audit.tasks.map((t: any) => [t.task, t.questions, t.verdict])).toEqual(audit.report.tasks.map((t) => [t.task, t.questions, t.verdict]));
    expect(r.json.data.audit.verdict).toBe(audit.report.verdict);
    expect(r.json.data.audit.questions).toBe(questions.length);
  });
});
