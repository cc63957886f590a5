import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { fixtures } from '../helpers/env.js';
import { tempDir } from '../helpers/tmp.js';

const q = (name: string) => fixtures('questions', name);
const ids = (name: string) => readFileSync(q(name), 'utf8').trim().split('\n').map((l) => JSON.parse(l).id as string);
const codes = (json: any) => json.findings.map((f: any) => f.code);

describe('aptpace review --out', () => {
  it('writes a self-contained page with every question, and regenerates its own page without --force', async () => {
    const out = path.join(tempDir(), 'review');
    const r = await cli('review', q('balanced-plan.jsonl'), q('hostile.jsonl'), '--out', out, '--json');
    expect(r.code).toBe(0);
    const html = readFileSync(path.join(out, 'review.html'), 'utf8');
    for (const id of [...ids('balanced-plan.jsonl'), ...ids('hostile.jsonl')]) expect(html).toContain(`data-id="${id}"`);
    expect(html).not.toContain('<script>alert(1)</script>');
    expect(r.json.data.coverage).toMatchObject({ approved: 0, rejected: 0, unreviewed: 50, stale: [] });
    expect(codes(r.json)).toContain('review-pending');

    const again = await cli('review', q('balanced-plan.jsonl'), q('hostile.jsonl'), '--out', out);
    expect(again.code).toBe(0);
    expect(readFileSync(path.join(out, 'review.html'), 'utf8')).toBe(html);
  });

  it('never overwrites a review.html it did not write, unless --force', async () => {
    const out = tempDir();
    writeFileSync(path.join(out, 'review.html'), '<p>my notes</p>');
    const r = await cli('review', q('balanced-plan.jsonl'), '--out', out);
    // Updated: output-exists is a usage error (exit 2), issue 12.
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('output-exists');
    expect(readFileSync(path.join(out, 'review.html'), 'utf8')).toBe('<p>my notes</p>');
    expect((await cli('review', q('balanced-plan.jsonl'), '--out', out, '--force')).code).toBe(0);
  });

  it('usage: exactly one of --out / --apply, and --apply needs --status', async () => {
    const dir = tempDir();
    expect((await cli('review', q('balanced-plan.jsonl'))).code).toBe(2);
    expect((await cli('review', q('balanced-plan.jsonl'), '--out', dir, '--apply', 'd.jsonl', '--status', 's.jsonl')).code).toBe(2);
    expect((await cli('review', q('balanced-plan.jsonl'), '--apply', 'd.jsonl')).code).toBe(2);
    expect((await cli('review', q('balanced-plan.jsonl'), '--out', dir, '--max-prompt-chars', '-3')).code).toBe(2);
  });
});

describe('aptpace review --apply', () => {
  const [a, b, c] = ids('balanced-plan.jsonl') as [string, string, string];

  it('merges decisions atomically, reports unknown ids (exit 1), and the page shows the result', async () => {
    const dir = tempDir();
    const status = path.join(dir, 'status.jsonl');
    const decisions = path.join(dir, 'decisions.jsonl');
    writeFileSync(decisions, [
      { id: a, status: 'approved' },
      { id: b, status: 'rejected', note: 'C is also right' },
      { id: 'not-a-question', status: 'approved' },
    ].map((d) => JSON.stringify(d)).join('\n') + '\n');
    const r = await cli('review', q('balanced-plan.jsonl'), '--apply', decisions, '--status', status, '--json');
    expect(r.code).toBe(1);
    expect(r.json.findings.find((f: any) => f.code === 'review-decision-unknown-id')).toMatchObject({ path: { file: decisions, line: 3 }, args: { id: 'not-a-question' } });
    expect(r.json.data).toMatchObject({ written: true, changed: 2, unknown: 1 });
    const lines = readFileSync(status, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines).toEqual([{ id: a, status: 'approved' }, { id: b, status: 'rejected', note: 'C is also right' }].sort((x, y) => (x.id < y.id ? -1 : 1)));
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);

    const out = path.join(dir, 'page');
    const page = await cli('review', q('balanced-plan.jsonl'), '--out', out, '--status', status, '--json');
    expect(page.json.data.coverage).toMatchObject({ approved: 1, rejected: 1, unreviewed: 46 });
    expect(readFileSync(path.join(out, 'review.html'), 'utf8')).toContain('C is also right');
  });

  it('keeps decisions for questions a rebuild dropped, and reports them as stale', async () => {
    const dir = tempDir();
    const status = path.join(dir, 'status.jsonl');
    writeFileSync(status, `${JSON.stringify({ id: 'from-last-build', status: 'approved' })}\n`);
    const decisions = path.join(dir, 'd.jsonl');
    writeFileSync(decisions, `${JSON.stringify({ id: c, status: 'pending', note: 'check with the author' })}\n`);
    const r = await cli('review', q('balanced-plan.jsonl'), '--apply', decisions, '--status', status, '--json');
    expect(r.code).toBe(0);
    expect(r.json.findings.find((f: any) => f.code === 'review-status-stale')).toMatchObject({ severity: 'warning', args: { count: 1, ids: ['from-last-build'] } });
    expect(readFileSync(status, 'utf8')).toContain('from-last-build');
    expect(readFileSync(status, 'utf8')).toContain('check with the author');
  });

  it('refuses to rewrite a status file with unreadable lines unless --force', async () => {
    const dir = tempDir();
    const status = path.join(dir, 'status.jsonl');
    const original = `${JSON.stringify({ id: a, status: 'approved' })}\n{broken\n`;
    writeFileSync(status, original);
    const decisions = path.join(dir, 'd.jsonl');
    writeFileSync(decisions, `${JSON.stringify({ id: b, status: 'approved' })}\n`);
    const r = await cli('review', q('balanced-plan.jsonl'), '--apply', decisions, '--status', status, '--json');
    expect(r.code).toBe(1);
    expect(codes(r.json)).toEqual(expect.arrayContaining(['review-status-invalid-json', 'review-status-not-rewritten']));
    expect(readFileSync(status, 'utf8')).toBe(original);
    expect((await cli('review', q('balanced-plan.jsonl'), '--apply', decisions, '--status', status, '--force')).code).toBe(1);
    expect(readFileSync(status, 'utf8').trim().split('\n')).toHaveLength(2);
  });

  it('a missing decisions file is an error and creates nothing', async () => {
    const dir = tempDir();
    const status = path.join(dir, 'status.jsonl');
    const r = await cli('review', q('balanced-plan.jsonl'), '--apply', path.join(dir, 'nope.jsonl'), '--status', status, '--json');
    expect(r.code).toBe(1);
    expect(codes(r.json)).toContain('review-status-missing');
    expect(existsSync(status)).toBe(false);
  });
});
