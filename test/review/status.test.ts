import { describe, expect, it } from 'vitest';
import { MemoryVfs } from '../../generator/core/kernel/memory-vfs.js';
import {
  filterApproved,
  loadReviewStatus,
  mergeDecisions,
  reviewContentHash,
  reviewCoverage,
  serializeStatus,
  staleFindings,
  type ReviewStatus,
} from '../../generator/core/questions/review/index.js';
import { mcq } from '../audit/build.js';

const lines = (...rows: string[]) => rows.map((r) => `${r}\n`).join('');

describe('loadReviewStatus', () => {
  it('reads entries, reports bad lines with line and field, and keeps going', async () => {
    const vfs = new MemoryVfs({
      '/s.jsonl': lines(
        '{"id":"a","status":"approved"}',
        '{"id":"b","status":"rejected","note":"distractor B is also correct"}',
        'not json',
        '{"id":"c","status":"maybe"}',
        '{"status":"approved"}',
        '{"id":"d","status":"pending","note":7}',
        '["id","e"]',
        '',
        '{"id":"e","status":"pending","reviewer":"ana"}',
        '{"id":"a","status":"rejected","note":"second look: leaks the gold"}',
      ),
    });
    const { statuses, findings, tally } = await loadReviewStatus(vfs, '/s.jsonl');
    expect(Object.fromEntries(statuses)).toEqual({
      a: { status: 'rejected', note: 'second look: leaks the gold' },
      b: { status: 'rejected', note: 'distractor B is also correct' },
      e: { status: 'pending' },
    });
    expect(findings.map((f) => [f.code, f.path.line, f.path.field])).toEqual([
      ['review-status-invalid-json', 3, undefined],
      ['review-status-invalid-entry', 4, 'status'],
      ['review-status-invalid-entry', 5, 'id'],
      ['review-status-invalid-entry', 6, 'note'],
      ['review-status-invalid-entry', 7, undefined],
      ['review-status-unknown-field', 9, 'reviewer'],
      ['review-status-duplicate-id', 10, 'id'],
    ]);
    expect(tally).toEqual({ read: 9, accepted: 4, rejected: 5 });
  });

  it('a missing file is an empty review, or an error when it must exist', async () => {
    const vfs = new MemoryVfs();
    expect((await loadReviewStatus(vfs, '/none.jsonl')).findings).toEqual([]);
    expect((await loadReviewStatus(vfs, '/none.jsonl', { mustExist: true })).findings.map((f) => f.code)).toEqual(['review-status-missing']);
  });

  it('flags invalid UTF-8 and an unterminated last line', async () => {
    const bytes = new Uint8Array([...new TextEncoder().encode('{"id":"a","status":"approved"}\n'), 0xff, 0x0a, ...new TextEncoder().encode('{"id":"b","status":"approved"}')]);
    const { statuses, findings } = await loadReviewStatus(new MemoryVfs({ '/s': bytes }), '/s');
    expect([...statuses.keys()]).toEqual(['a', 'b']);
    expect(findings.map((f) => [f.code, f.path.line])).toEqual([
      ['review-status-invalid-utf8', 2],
      ['review-status-unterminated-line', 3],
    ]);
  });
});

describe('decisions against a question set', () => {
  const q1 = mcq({ id: 'q1', choices: ['a', 'b'], gold: 0 });
  const q2 = mcq({ id: 'q2', choices: ['a', 'b'], gold: 1 });
  const q3 = mcq({ id: 'q3', choices: ['a', 'b'], gold: 0 });
  const statuses = new Map<string, ReviewStatus>([
    ['q1', { status: 'approved' }],
    ['q2', { status: 'rejected', note: 'two right answers' }],
    ['gone', { status: 'approved' }],
  ]);

  it('filterApproved keeps only approved questions, in input order', () => {
    expect(filterApproved([q3, q2, q1], statuses).map((q) => q.id)).toEqual(['q1']);
  });

  it('coverage counts statuses and lists stale ids instead of dropping them', () => {
    const coverage = reviewCoverage([q1, q2, q3], statuses);
    expect(coverage).toEqual({ approved: 1, rejected: 1, pending: 0, unreviewed: 1, stale: ['gone'], outdated: [] });
    const [stale] = staleFindings(coverage, 'status.jsonl');
    expect(stale).toMatchObject({ code: 'review-status-stale', severity: 'warning', args: { count: 1, ids: ['gone'] } });
  });

  it('merge applies known ids, reports unknown ones with their line, and keeps stale entries', () => {
    const decisions = new Map<string, ReviewStatus>([
      ['q1', { status: 'approved' }],
      ['q3', { status: 'rejected', note: 'gold leaked' }],
      ['typo', { status: 'approved' }],
    ]);
    const merged = mergeDecisions(statuses, decisions, new Set(['q1', 'q2', 'q3']), { file: 'd.jsonl', lines: new Map([['typo', 3]]) });
    expect(merged).toMatchObject({ changed: 1, unchanged: 1, unknown: 1 });
    expect(merged.findings.map((f) => [f.code, f.path.file, f.path.line, f.args.id])).toEqual([['review-decision-unknown-id', 'd.jsonl', 3, 'typo']]);
    expect(Object.fromEntries(merged.statuses)).toEqual({
      q1: { status: 'approved' },
      q2: { status: 'rejected', note: 'two right answers' },
      q3: { status: 'rejected', note: 'gold leaked' },
      gone: { status: 'approved' },
    });
  });

  it('serialises sorted by id with a fixed key order, and reads back to the same map', async () => {
    const text = serializeStatus(statuses);
    expect(text).toBe(lines(
      '{"id":"gone","status":"approved"}',
      '{"id":"q1","status":"approved"}',
      '{"id":"q2","status":"rejected","note":"two right answers"}',
    ));
    const back = await loadReviewStatus(new MemoryVfs({ '/s': text }), '/s');
    expect(back.statuses).toEqual(statuses);
  });
});

describe('decisions survive rebuilds only for the version that was reviewed', () => {
  const v1 = mcq({ id: 'q', prompt: 'Pick the next step.\n', choices: ['open setup.py', 'delete setup.py'], gold: 0 });
  const v2 = { ...v1, choices: ['open setup.py', 'open setup.cfg'] };
  const rebuiltSameText = { ...v1, prompt_tokens: 999, provenance: { ...v1.provenance, source_line: 7 } };

  it('the content hash follows what a reviewer judges, not bookkeeping fields', () => {
    expect(reviewContentHash(v1)).toMatch(/^[0-9a-f]{16}$/);
    expect(reviewContentHash(v2)).not.toBe(reviewContentHash(v1));
    expect(reviewContentHash({ ...v1, gold: 1 })).not.toBe(reviewContentHash(v1));
    expect(reviewContentHash(rebuiltSameText)).toBe(reviewContentHash(v1));
  });

  it('an approval of v1 does not approve v2; one without a hash applies to any version', () => {
    const approvedV1 = new Map<string, ReviewStatus>([['q', { status: 'approved', content: reviewContentHash(v1) }]]);
    expect(filterApproved([rebuiltSameText], approvedV1)).toHaveLength(1);
    expect(filterApproved([v2], approvedV1)).toEqual([]);
    const coverage = reviewCoverage([v2], approvedV1);
    expect(coverage).toMatchObject({ approved: 0, unreviewed: 1, outdated: ['q'] });
    expect(staleFindings(coverage, 's.jsonl').map((f) => f.code)).toEqual(['review-status-outdated']);
    expect(filterApproved([v2], new Map([['q', { status: 'approved' }]]))).toHaveLength(1);
  });

  it('a malformed content hash is rejected with its field', async () => {
    const { findings } = await loadReviewStatus(new MemoryVfs({ '/s': '{"id":"q","status":"approved","content":"xyz"}\n' }), '/s');
    expect(findings.map((f) => [f.code, f.path.field])).toEqual([['review-status-invalid-entry', 'content']]);
  });
});
