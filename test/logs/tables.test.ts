import { describe, expect, it } from 'vitest';
import { MemoryVfs } from '../../generator/core/kernel/memory-vfs.js';
import { nodeVfs } from '../../generator/core/kernel/node-vfs.js';
import { readScoreTables } from '../../generator/core/logs/index.js';
import { hasPython, hasSharedData, inCi, shared } from '../helpers/env.js';
import { cellsOf, codes, countCode, runPython } from './helpers.js';

const crlf = (rows: string[]) => rows.join('\r\n') + '\r\n';

describe('readScoreTables: PACE per-model CSV', () => {
  it('reads <root>/<bench>/<subdir>/<Model>.csv into task bench/subdir, model = stem, CRLF and LF alike', async () => {
    const vfs = new MemoryVfs({
      '/r/gpqa/diamond/A.csv': crlf(['id,score,metric_name', '0,1.0,exact_match', '1,0.0,exact_match']),
      '/r/gpqa/diamond/B.csv': 'id,score,metric_name\n1,1.0,exact_match\n',
      '/r/aime25/A.csv': crlf(['id,score,metric_name', '7,0.5,exact_match']),
    });
    const { matrix, findings, tally } = await readScoreTables(vfs, ['/r']);
    expect(matrix.models.map((m) => m.name)).toEqual(['A', 'B']);
    expect(matrix.instances.map((i) => i.key)).toEqual(['aime25/7', 'gpqa/diamond/0', 'gpqa/diamond/1']);
    expect(matrix.instances.map((i) => i.task)).toEqual(['aime25', 'gpqa/diamond', 'gpqa/diamond']);
    expect(cellsOf(matrix)).toEqual({ A: { 'aime25/7': 0.5, 'gpqa/diamond/0': 1, 'gpqa/diamond/1': 0 }, B: { 'gpqa/diamond/1': 1 } });
    // B never saw doc 0: unobserved, and the placeholder value is 0 only in `values`.
    expect(matrix.observed[1 * 3 + 1]).toBe(0);
    expect(tally).toEqual({ read: 4, accepted: 4, rejected: 0 });
    expect(codes(findings)).toEqual(['table-sparse-file']);
    expect(matrix.provenance.metrics).toEqual({ aime25: 'exact_match', 'gpqa/diamond': 'exact_match' });
  });

  it('rejects NaN, strings, empty ids and short rows with file:line and keeps the rest', async () => {
    const vfs = new MemoryVfs({
      '/r/t/M.csv': ['id,score,metric_name', '0,NaN,acc', '1,abc,acc', ',1,acc', '3,1', '4,1e-1,acc', '5,inf,acc', '6,,acc'].join('\n'),
    });
    const { matrix, findings, tally } = await readScoreTables(vfs, ['/r']);
    expect(cellsOf(matrix)).toEqual({ M: { 't/4': 0.1 } });
    expect(tally.rejected).toBe(6);
    expect(tally.accepted).toBe(1);
    const bad = findings.filter((f) => f.code === 'table-bad-score');
    expect(bad.map((f) => f.path.line)).toEqual([2, 3, 7, 8]);
    expect(bad[0]!.path).toMatchObject({ file: '/r/t/M.csv', field: 'score' });
    expect(countCode(findings, 'table-empty-id')).toBe(1);
    expect(findings.find((f) => f.code === 'table-bad-row')!.path.line).toBe(5);
  });

  it('rejects out-of-range scores (−1, 2, 1e308) with file:line:field, in both formats', async () => {
    const vfs = new MemoryVfs({
      '/r/t/M.csv': ['id,score', '0,-1', '1,2', '2,1e308', '3,0.5', '4,1', '5,0'].join('\n'),
      '/w/wide.csv': ['model,t/a,t/b,t/c', 'M,0.5,2,-0.25'].join('\n'),
    });
    const pace = await readScoreTables(vfs, ['/r']);
    expect(cellsOf(pace.matrix)).toEqual({ M: { 't/3': 0.5, 't/4': 1, 't/5': 0 } });
    expect(pace.tally).toMatchObject({ read: 6, accepted: 3, rejected: 3 });
    expect(pace.findings.filter((f) => f.code === 'table-out-of-range').map((f) => [f.path.line, f.path.field, f.args.value])).toEqual([
      [2, 'score', '-1'],
      [3, 'score', '2'],
      [4, 'score', '1e308'],
    ]);
    const wide = await readScoreTables(vfs, ['/w/wide.csv'], { format: 'wide' });
    expect(cellsOf(wide.matrix)).toEqual({ M: { 't/a': 0.5 } });
    expect(wide.findings.filter((f) => f.code === 'table-out-of-range').map((f) => f.path.field)).toEqual(['t/b', 't/c']);
  });

  it('one bad UTF-8 byte rejects that row only, counted', async () => {
    const head = Buffer.from('id,score\n0,1\n1,0\n');
    const bad = Buffer.from([0x32, 0x2c, 0x31, 0xff, 0x0a]); // "2,1<0xff>"
    const tail = Buffer.from('3,1\n4,0\n');
    const vfs = new MemoryVfs({ '/r/t/M.csv': Buffer.concat([head, bad, tail]) });
    const { matrix, findings, tally } = await readScoreTables(vfs, ['/r']);
    expect(cellsOf(matrix)).toEqual({ M: { 't/0': 1, 't/1': 0, 't/3': 1, 't/4': 0 } });
    expect(findings.filter((f) => f.code === 'table-invalid-utf8').map((f) => f.path.line)).toEqual([4]);
    expect(tally).toMatchObject({ read: 5, accepted: 4, rejected: 1 });
  });

  it('an unterminated quote rejects its line, counted; the rows after it are still read', async () => {
    const vfs = new MemoryVfs({ '/r/t/M.csv': ['id,score', '0,1', '"1,0', '2,1', '3,0', ''].join('\n') });
    const { matrix, findings, tally } = await readScoreTables(vfs, ['/r']);
    expect(cellsOf(matrix)).toEqual({ M: { 't/0': 1, 't/2': 1, 't/3': 0 } });
    expect(findings.filter((f) => f.code === 'table-parse-error').map((f) => f.path.line)).toEqual([3]);
    expect(tally).toMatchObject({ read: 4, accepted: 3, rejected: 1 });
  });

  it('duplicate ids: equal repeats are skipped, conflicting ones are errors unless a policy is chosen', async () => {
    const files = { '/r/t/M.csv': 'id,score\n0,0\n1,1\n0,1\n1,1\n' };
    const strict = await readScoreTables(new MemoryVfs(files), ['/r']);
    expect(cellsOf(strict.matrix).M).toEqual({ 't/0': 0, 't/1': 1 });
    expect(codes(strict.findings)).toEqual(['table-duplicate-id', 'table-duplicate-same']);
    expect(strict.findings[0]!.severity).toBe('error');
    expect(strict.tally).toMatchObject({ rejected: 1, skipped: { 'duplicate-same': 1 } });

    const last = await readScoreTables(new MemoryVfs(files), ['/r'], { duplicates: 'last' });
    expect(cellsOf(last.matrix).M).toEqual({ 't/0': 1, 't/1': 1 });
    expect(last.findings.find((f) => f.code === 'table-duplicate-resolved')!.severity).toBe('warning');
    expect(last.tally.rejected).toBe(0);
  });

  it('applies the model mapping and reports a constant file', async () => {
    const vfs = new MemoryVfs({ '/r/t/alias.csv': 'id,score\n0,0\n1,0\n' });
    const { matrix, findings } = await readScoreTables(vfs, ['/r'], { mapping: { alias: 'Canonical', unused: 'X' } });
    expect(matrix.models).toEqual([{ name: 'Canonical', sources: ['/r/t/alias.csv'] }]);
    expect(codes(findings).sort()).toEqual(['mapping-unused', 'table-constant-file']);
  });

  it('a missing input and a header that fits no format are findings, not crashes', async () => {
    const vfs = new MemoryVfs({ '/r/t/M.csv': 'only\n1\n' });
    const { findings, tally } = await readScoreTables(vfs, ['/nope', '/r']);
    expect(codes(findings)).toEqual(['input-missing', 'input-unrecognised']);
    expect(tally.rejected).toBe(1);
  });
});

describe('readScoreTables: wide CSV/TSV', () => {
  it('rows = models, columns = <task>/<id>; blank / NA cells are unobserved, not zero', async () => {
    const vfs = new MemoryVfs({ '/w/scores.tsv': 'model\tmmlu/1\tmmlu/2\tgsm8k/5\nm1\t1\tNA\t0.5\nm2\t\t0\tx\n' });
    const { matrix, findings, tally } = await readScoreTables(vfs, ['/w/scores.tsv']);
    expect(matrix.instances.map((i) => i.key)).toEqual(['gsm8k/5', 'mmlu/1', 'mmlu/2']);
    expect(cellsOf(matrix)).toEqual({ m1: { 'gsm8k/5': 0.5, 'mmlu/1': 1 }, m2: { 'mmlu/2': 0 } });
    expect(tally).toEqual({ read: 6, accepted: 3, rejected: 1, skipped: { 'missing-cell': 2 } });
    expect(findings.map((f) => [f.code, f.path.line, f.path.field])).toEqual([['table-bad-score', 3, 'gsm8k/5']]);
  });

  it('models-columns orientation with an explicit task', async () => {
    const vfs = new MemoryVfs({ '/w/t.csv': 'id,m1,m2\na,1,0\nb,0,1\n' });
    const { matrix } = await readScoreTables(vfs, ['/w/t.csv'], { format: 'wide', orientation: 'models-columns', task: 'custom', metric: 'acc' });
    expect(cellsOf(matrix)).toEqual({ m1: { 'custom/a': 1, 'custom/b': 0 }, m2: { 'custom/a': 0, 'custom/b': 1 } });
    expect(matrix.instances[0]!.metric).toBe('acc');
  });
});

describe.skipIf(!hasSharedData)('readScoreTables on the real PACE CSVs', () => {
  const root = shared('pace', 'results', 'standardized_results');

  it('reads all 157 files; gpqa repeats its ids, bfcl has failed-only files, MiniMax planbench is all zeros', async () => {
    const { matrix, findings, tally } = await readScoreTables(nodeVfs, [root], { duplicates: 'first' });
    expect((matrix.provenance.files as unknown[]).length).toBe(157);
    expect(matrix.models).toHaveLength(19);
    const tasks = [...new Set(matrix.instances.map((i) => i.task))];
    expect(tasks).toEqual([
      'acp_gen/acp_app_gen', 'aime25', 'bfcl/non_live_simple_python', 'gpqa/diamond', 'humaneval_chat',
      'ifeval/prompt_level_strict_acc', 'livecodebench/codegeneration', 'mbpp_chat', 'planbench/task_1_plan_generation',
    ]);
    expect(matrix.instances.filter((i) => i.task === 'gpqa/diamond')).toHaveLength(198);
    expect(tally.rejected).toBe(0);
    // Every gpqa file repeats ids 0-197; the conflicting repeats were resolved by the chosen policy.
    const gpqaFiles = new Set(findings.filter((f) => f.code === 'table-duplicate-resolved').map((f) => f.path.file));
    expect(gpqaFiles.size).toBe(19);
    expect([...gpqaFiles].every((f) => f!.includes('gpqa/diamond'))).toBe(true);
    expect(findings.some((f) => f.code === 'table-constant-file' && f.path.file!.endsWith('planbench/task_1_plan_generation/MiniMax-M2.5.csv'))).toBe(true);
    expect(findings.some((f) => f.code === 'table-sparse-file' && f.path.file!.endsWith('bfcl/non_live_simple_python/GPT-5.2.csv'))).toBe(true);
  });

  it('without a duplicate policy the gpqa repeats are rejected (exit-1 worthy)', async () => {
    const { tally, findings } = await readScoreTables(nodeVfs, [shared('pace', 'results', 'standardized_results', 'gpqa')]);
    expect(tally.rejected).toBeGreaterThan(0);
    expect(findings.some((f) => f.code === 'table-duplicate-id' && f.severity === 'error')).toBe(true);
  });

  it.skipIf(!hasPython && !inCi)('every cell equals an independent Python csv read (keep-first, like PACE)', async () => {
    const { matrix } = await readScoreTables(nodeVfs, [root], { duplicates: 'first' });
    const expected = runPython(
      `
import csv, json, os, sys
root = sys.argv[1]
out = {}
for dirpath, _, files in os.walk(root):
    for f in files:
        if not f.endswith('.csv'): continue
        task = os.path.relpath(dirpath, root).replace(os.sep, '/')
        model = f[:-4]
        seen = out.setdefault(model, {})
        with open(os.path.join(dirpath, f), newline='') as fh:
            for row in csv.DictReader(fh):
                key = task + '/' + row['id']
                if key not in seen: seen[key] = float(row['score'])
print(json.dumps(out))
`,
      [root],
    );
    expect(cellsOf(matrix)).toEqual(expected);
  });
});
