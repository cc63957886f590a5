/**
 * Property test: every command on a few thousand generated bad inputs (seeded mutations of the
 * fixtures: cut lines, bad bytes, deep nesting, lone surrogates, wrong types, control
 * characters, non-finite numbers, loops, folders where files belong) and hostile flag values.
 * Each run must exit 0, 1 or 2, print no stack trace, keep its tallies consistent (nothing
 * accepted that was not read; rejections fail the run) and write nothing outside its output,
 * not even when a subfolder is swapped for a link in the middle of a write; every bad line of a
 * flat input reaches --findings-file.
 * The CLI runs in-process, so a few hundred invocations stay cheap on two cores.
 */
import { copyFileSync, cpSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { fixtures, repoRoot } from '../helpers/env.js';
import { nodeVfs } from '../../generator/core/kernel/node-vfs.js';
import { saveStore } from '../../generator/core/logs/store.js';
import { syntheticPace } from '../../generator/core/pace/inputs/synthetic.js';
import { applySkipMutation, SKIP_MUTATIONS } from './skipped-checks.js';

const root = tempDir('aptpace-fuzz-');
const inputs = path.join(root, 'inputs');
const outputs = path.join(root, 'outputs');
const store = path.join(root, 'store');
const fit = path.join(root, 'fit');
const fast = ['--budget', '20', '--bootstrap', '0', '--nc-h', '2', '--nc-d', '2'];
const tried = { inputs: 0, invocations: 0, crashes: 0, silentLosses: 0, escapes: 0, foreignOverwrites: 0, tornAccepted: 0, concurrentMixed: 0, checksSkippedSilently: 0, findingsLost: 0, racesWon: 0 };

/** mulberry32: the same mutations on every machine. */
function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = rng(12);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;

const HOSTILE_STRINGS = ['\u001b[31m\u001b]0;t\u0007', '<img src=x onerror=alert(1)>', '\ud800', '../../../etc/passwd', '', ' ', '\u0000', 'a'.repeat(5000), '# h\n[l](x)', '\u202e'];
const HOSTILE_VALUES: unknown[] = [null, -1, 2, 1e308, -0, true, [], {}, 'x', 1.5, '1e999', [[[[]]]]];

/** One mutation of a text line (or whole file). */
function mutateText(text: string): string | Uint8Array {
  const kind = Math.floor(rand() * 12);
  switch (kind) {
    case 0:
      return text.slice(0, Math.floor(rand() * text.length)); // cut mid-line
    case 1: {
      const bytes = Buffer.from(text);
      const at = Math.floor(rand() * bytes.length);
      return Buffer.concat([bytes.subarray(0, at), Buffer.from([pick([0xff, 0xc3, 0xed, 0x80, 0x00])]), bytes.subarray(at)]);
    }
    case 2:
      return `${'['.repeat(3000 + Math.floor(rand() * 5000))}${text}`; // unbalanced deep nesting
    case 3: {
      const deep = `${'{"a":'.repeat(6000)}1${'}'.repeat(6000)}`;
      return text.replace(/:\s*"[^"]*"/, `: ${deep}`);
    }
    case 4:
      return text.replace(/"[^"\\]{3,}"/, JSON.stringify(pick(HOSTILE_STRINGS)).replace('"\\ud800"', '"\\ud800"'));
    case 5:
      return text.replace(/"([a-z_]+)":\s*("[^"]*"|-?\d+(\.\d+)?|true|false|null)/, (_m, k) => `"${k}": ${JSON.stringify(pick(HOSTILE_VALUES))}`);
    case 6:
      return text.replace(/-?\d+(\.\d+)?/, pick(['NaN', 'Infinity', '-Infinity', '1e400', '-1']));
    case 7:
      return text.replace(/\\ud[89ab][0-9a-f]{2}|"[^"\\]{2,}"/, '"\\udc00x"');
    case 8:
      return `\ufeff${text}\r\n\r\n`;
    case 9:
      return text.split('\n').reverse().join('\n');
    case 10:
      return '';
    default:
      return text.replace(/[{}[\],:]/, pick(['', '}', ']', ',,', '::']));
  }
}

function writeMutants(dir: string, source: string, count: number, ext: string, perLine = false): string[] {
  mkdirSync(dir, { recursive: true });
  const text = readFileSync(source, 'utf8');
  const files: string[] = [];
  for (let i = 0; i < count; i++) {
    const file = path.join(dir, `m${String(i).padStart(4, '0')}${ext}`);
    if (perLine) {
      const lines = text.split('\n').filter(Boolean);
      const j = Math.floor(rand() * lines.length);
      const mutated = mutateText(lines[j]!);
      const parts = lines.map((l, k) => (k === j ? Buffer.from(typeof mutated === 'string' ? mutated : Buffer.from(mutated)) : Buffer.from(l)));
      writeFileSync(file, Buffer.concat(parts.flatMap((p) => [p, Buffer.from('\n')])));
    } else writeFileSync(file, mutateText(text));
    files.push(file);
  }
  tried.inputs += count;
  return files;
}

/** Every path under `dir` with its size, to find writes outside the output. */
function listing(dir: string): Map<string, number> {
  const out = new Map<string, number>();
  const visit = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) visit(p);
      else out.set(p, e.isFile() ? statSync(p).size : -1);
    }
  };
  visit(dir);
  return out;
}

/** Runs one command and checks the invariants; `out` is where it may write. */
async function run(argv: string[], out?: string, alsoOut?: string) {
  const before = listing(root);
  const r = await cli(...argv, '--json', '--quiet');
  tried.invocations++;
  const where = argv.join(' ').slice(0, 300);
  if (r.code === 3 || /crashed|\n\s+at .+:\d+:\d+/.test(r.stderr)) tried.crashes++;
  expect([0, 1, 2], `${where}\n${r.stderr.slice(0, 800)}`).toContain(r.code);
  expect(r.stderr, where).not.toMatch(/crashed|\n\s+at .+:\d+:\d+/);
  for (const tally of tallies(r.json?.data)) {
    const lost = tally.accepted + tally.rejected > tally.read || (tally.rejected > 0 && r.code === 0);
    if (lost) tried.silentLosses++;
    expect(tally.accepted + tally.rejected, `${where}: ${JSON.stringify(tally)}`).toBeLessThanOrEqual(tally.read);
    if (tally.rejected > 0) expect(r.code, `${where}: rejected ${tally.rejected} yet exit 0`).not.toBe(0);
  }
  const after = listing(root);
  for (const [p, size] of after) {
    if (before.get(p) === size) continue;
    if (out && (p === out || p.startsWith(`${out}${path.sep}`))) continue;
    if (alsoOut && p === alsoOut) continue;
    if (out && p.startsWith(`${path.dirname(out)}${path.sep}.${path.basename(out)}`)) continue; // staging beside a new folder, renamed in
    tried.escapes++;
    throw new Error(`${where}: wrote ${p} outside its output ${out ?? '(none)'}`);
  }
  return r;
}

function tallies(data: any): Array<{ read: number; accepted: number; rejected: number }> {
  const found: Array<{ read: number; accepted: number; rejected: number }> = [];
  const visit = (v: any, depth: number) => {
    if (!v || typeof v !== 'object' || depth > 4) return;
    if (typeof v.read === 'number' && typeof v.accepted === 'number' && typeof v.rejected === 'number') found.push(v);
    else for (const k of Object.keys(v)) if (k === 'tally' || k === 'tallies' || k === 'fewshotTally' || depth === 0) visit(v[k], depth + 1);
  };
  visit(data, 0);
  return found;
}

let outCount = 0;
const nextOut = (ext = '') => path.join(outputs, `o${++outCount}${ext}`);

beforeAll(async () => {
  mkdirSync(outputs, { recursive: true });
  const syn = syntheticPace({ models: 10, instances: 120, dims: 2, targets: 1, targetInstances: 40, seed: 'fuzz' });
  await saveStore(nodeVfs, store, syn);
  expect((await cli('fit', '--store', store, '--out', fit, ...fast)).code).toBe(0);
});

describe('fuzz: every command on generated bad inputs', () => {
  it('trajectories: inspect, normalize and build over folders of mutants, and per file', async () => {
    const dir = path.join(inputs, 'traj');
    const sources = ['canonical.jsonl', 'chat-messages.jsonl', 'openhands-output.jsonl', 'deep-research.jsonl', 'openhands-events.json', 'acme__widgets-12.traj'];
    const files: string[] = [];
    for (const s of sources) files.push(...writeMutants(path.join(dir, s.replace(/\W/g, '_')), fixtures('trajectories', 'good', s), 160, s.replace(/^[^.]*/, ''), s.endsWith('.jsonl')));
    symlinkSync('..', path.join(dir, 'canonical_jsonl', 'loop'));
    symlinkSync('/nonexistent', path.join(dir, 'dangling.jsonl'));
    mkdirSync(path.join(dir, 'folder.jsonl'));
    await run(['inspect', dir]);
    const n = nextOut('.jsonl');
    await run(['normalize', dir, '--out', n], n);
    const b = nextOut('.jsonl');
    await run(['build', dir, '--out', b, '--no-audit', '--include-unproven'], b);
    for (let i = 0; i < 30; i++) {
      const f = pick(files);
      const o = nextOut('.jsonl');
      await run(rand() < 0.5 ? ['inspect', f] : ['normalize', f, '--out', o], o);
    }
  });

  it('questions: audit, review and emit on mutated question files', async () => {
    const dir = path.join(inputs, 'questions');
    const files = [
      ...writeMutants(path.join(dir, 'plan'), fixtures('questions', 'balanced-plan.jsonl'), 400, '.jsonl', true),
      ...writeMutants(path.join(dir, 'hostile'), fixtures('questions', 'hostile.jsonl'), 150, '.jsonl', true),
    ];
    await run(['audit', path.join(dir, 'plan')]);
    for (let i = 0; i < 20; i++) {
      const f = pick(files);
      await run(['audit', f]);
      const rv = nextOut();
      await run(['review', f, '--out', rv], rv);
      const e = nextOut();
      await run(['emit', f, '--out', e, '--suite', pick(['aptpace_fz', 'bad suite', 'okapi', '../x', 'a'.repeat(200)]), ...(rand() < 0.5 ? ['--keep-going'] : [])], e);
    }
  });

  it('ingest: mutated score tables, targets, mappings and harness logs', async () => {
    const dir = path.join(inputs, 'ingest');
    const tables = writeMutants(path.join(dir, 'tables'), fixtures('logs', 'openhands-to-pace-targets.json'), 1, '.json');
    const csv = path.join(dir, 'seed.csv');
    writeFileSync(csv, 'model,id,score\nm1,a,1\nm1,b,0\nm2,a,0.5\nm2,b,1\n');
    const csvs = writeMutants(path.join(dir, 'csv'), csv, 300, '.csv', true);
    const mappings = writeMutants(path.join(dir, 'map'), fixtures('logs', 'openhands-to-pace-mapping.json'), 100, '.json');
    const logs = path.join(dir, 'logs');
    const sampleDirs = readdirSync(fixtures('logs', 'harness-output', 'out', 'model-a'), { recursive: true }) as string[];
    const samples = sampleDirs.filter((p) => /samples_.*\.jsonl$/.test(p)).map((p) => fixtures('logs', 'harness-output', 'out', 'model-a', p));
    for (let i = 0; i < 100; i++) {
      const runDir = path.join(logs, `run${i}`);
      mkdirSync(runDir, { recursive: true });
      const resultsName = (readdirSync(fixtures('logs', 'harness-output', 'out', 'model-a'), { recursive: true }) as string[]).find((p) => /results_.*\.json$/.test(p));
      if (resultsName) copyFileSync(fixtures('logs', 'harness-output', 'out', 'model-a', resultsName), path.join(runDir, path.basename(resultsName)));
      const s = pick(samples);
      writeMutants(runDir, s, 1, `.${path.basename(s)}`, true);
      // The mutant must keep its harness name to be found: drop the m0000 prefix.
      for (const n of readdirSync(runDir)) if (n.startsWith('m0000.')) copyFileSync(path.join(runDir, n), path.join(runDir, n.slice('m0000.'.length)));
    }
    const o1 = nextOut();
    await run(['ingest', logs, '--out', o1], o1);
    const o2 = nextOut();
    await run(['ingest', '--tables', path.join(dir, 'csv'), '--out', o2], o2);
    for (let i = 0; i < 40; i++) {
      const o = nextOut();
      await run(['ingest', '--tables', pick(csvs), '--mapping', pick(mappings), '--targets', pick(tables), '--out', o], o);
    }
  });

  it('pace: fit, evaluate, predict and check with mutated configs, grids, mappings, histories and model files', async () => {
    const dir = path.join(inputs, 'pace');
    const configs = writeMutants(path.join(dir, 'config'), fixtures('pace', 'pace-frozen-c100.json'), 40, '.json');
    const grid = path.join(dir, 'grid.json');
    writeFileSync(grid, '{"budgets":[20],"qs":[0.5],"ms":[0.5],"ncHs":[2],"ncDs":[2]}');
    const grids = writeMutants(path.join(dir, 'grid'), grid, 40, '.json');
    const model = path.join(fit, 'model.json');
    const models = writeMutants(path.join(dir, 'model'), model, 60, '.json');
    const history = path.join(dir, 'history.jsonl');
    writeFileSync(history, `${JSON.stringify({ format: 'aptpace-check-history', version: 1, model: 'x', step: 1, modelFileSha256: 'a', targets: [] })}\n`);
    const histories = writeMutants(path.join(dir, 'history'), history, 40, '.jsonl', true);
    const mappings = writeMutants(path.join(dir, 'map'), fixtures('logs', 'openhands-to-pace-mapping.json'), 40, '.json');
    const checkpoint = 'model-0001';
    for (const c of configs) {
      const o = nextOut();
      await run(['fit', '--store', store, '--out', o, '--bootstrap', '0', '--config', c], o);
    }
    for (const g of grids) await run(['evaluate', '--store', store, '--grid', g, ...fast, '--budgets', '', '--baselines', 'mean', '--max-folds', '1']);
    for (const m of models) {
      const o = nextOut('.json');
      await run(['predict', '--model-file', m, '--model', checkpoint, '--store', store, '--out', o], o);
    }
    for (const h of histories) {
      const o = nextOut();
      // The history file is check's own output too: it may be rewritten in place.
      const own = nextOut('.jsonl');
      copyFileSync(h, own);
      const r = await run(['check', '--model-file', model, '--model', checkpoint, '--store', store, '--out', o, '--history', own], o, own);
      expect([0, 1]).toContain(r.code);
    }
    for (const m of mappings) {
      const o = nextOut();
      await run(['check', '--model-file', model, '--model', checkpoint, '--store', store, '--out', o, '--mapping', m], o);
    }
  });

  it('hostile flag values on every command are usage errors or findings', async () => {
    const values = ['', '-1', 'NaN', 'Infinity', '1e12', 'abc', '0x10', '\u001b[2J', inputs];
    const flags: Array<[string[], string]> = [
      [['fit', '--store', store], '--budget'],
      [['fit', '--store', store], '--bootstrap'],
      [['fit', '--store', store], '--q'],
      [['fit', '--store', store], '--nc-d'],
      [['evaluate', '--store', store, '--no-nested', '--baselines', '', '--max-folds', '1', '--bootstrap', '0'], '--budgets'],
      [['evaluate', '--store', store, '--no-nested', '--baselines', '', '--budget', '20', '--bootstrap', '0'], '--max-folds'],
      [['check', '--model-file', path.join(fit, 'model.json'), '--model', 'model-0001', '--store', store], '--max-missing'],
      [['check', '--model-file', path.join(fit, 'model.json'), '--model', 'model-0001', '--store', store], '--min-score'],
      [['predict', '--model-file', path.join(fit, 'model.json'), '--model', 'model-0001', '--store', store], '--min-score'],
      [['emit', fixtures('questions', 'balanced-plan.jsonl')], '--num-fewshot'],
      [['audit', fixtures('questions', 'balanced-plan.jsonl')], '--tolerance'],
      [['inspect', fixtures('trajectories', 'good', 'canonical.jsonl')], '--max-file-mb'],
      [['build', fixtures('trajectories', 'good', 'canonical.jsonl'), '--no-audit'], '--choices'],
    ];
    for (const [base, flag] of flags) {
      for (const v of values) {
        const o = nextOut(base[0] === 'build' || base[0] === 'predict' ? '.json' : '');
        const needsOut = ['fit', 'check', 'build', 'emit'].includes(base[0]!);
        await run([...base, flag, v, ...(needsOut ? ['--out', o] : [])], o);
        tried.inputs++;
      }
    }
  });

  it('integrity classes: links inside outputs, foreign overwrites, torn sets read back, concurrent writers, huge flat and deep inputs, links swapped in mid-write', async () => {
    const dir = path.join(inputs, 'integrity');
    mkdirSync(dir, { recursive: true });
    const victim = path.join(dir, 'victim');
    mkdirSync(victim);
    const model = path.join(fit, 'model.json');
    const questions = fixtures('questions', 'balanced-plan.jsonl');
    const refs = ['a', 'b', 'c', 'd'].map((n, i) => `  - {name: ref-${n}, model: dummy, model_args: pretrained=ref-${n}, scores: {swe-bench: 0.${i + 2}}}`);
    const reference = path.join(dir, 'reference.yaml');
    writeFileSync(reference, `format: aptpace-reference/1\nsuite: {path: ${path.join(repoRoot, 'dist-tasks', 'aptpace_fixtures')}}\nreferences:\n${refs.join('\n')}\n`);
    // Each suite in its own parent: sibling suites registering the same task names are refused.
    const suite = path.join(nextOut(), 'suite');
    await run(['emit', questions, '--out', suite, '--suite', 'aptpace_fzi'], suite);

    // 1. A link inside an output, to a folder outside it, at every subfolder a command writes.
    const linked: Array<[string, (o: string) => string[]]> = [
      ['charts', (o) => ['check', '--model-file', model, '--model', 'model-0009', '--store', store, '--out', o, '--allow-unproven']],
      ['charts', (o) => ['report', '--store', store, '--model-file', model, '--out', o]],
      ['shards', (o) => ['plan', '--reference', reference, '--shards', '2', '--out', o]],
      ['proxy-suite', (o) => ['fit', '--store', store, '--suite', suite, '--out', o, ...fast]],
    ];
    for (const [sub, argv] of linked) {
      for (const nested of ['', 'deeper']) {
        const o = nextOut();
        mkdirSync(o);
        const target = nested ? path.join(victim, nested) : victim;
        mkdirSync(target, { recursive: true });
        symlinkSync(target, path.join(o, sub));
        await run([...argv(o), '--force'], o);
        tried.inputs++;
      }
    }
    const emitted = path.join(nextOut(), 'suite');
    await run(['emit', questions, '--out', emitted, '--suite', 'aptpace_fzl'], emitted);
    rmSync(path.join(emitted, 'data'), { recursive: true });
    symlinkSync(victim, path.join(emitted, 'data'));
    await run(['emit', questions, '--out', emitted, '--suite', 'aptpace_fzl', '--force'], emitted);
    tried.inputs++;

    // 2. Foreign files: never replaced without --force, inputs never even with it.
    const foreign = path.join(dir, 'notes.txt');
    writeFileSync(foreign, 'my notes\n');
    const input = path.join(dir, 'q.jsonl');
    copyFileSync(questions, input);
    for (const [file, extra] of [[foreign, []], [input, ['--force']]] as const) {
      const before = readFileSync(file, 'utf8');
      for (const argv of [
        ['audit', input, '--findings-file', file],
        ['normalize', fixtures('trajectories', 'good', 'chat-messages.jsonl'), '--out', file === input ? input : nextOut('.jsonl'), '--findings-file', file],
        ['review', input, '--out', nextOut(), '--findings-file', file],
      ]) {
        await run([...argv, ...extra]);
        if (readFileSync(file, 'utf8') !== before) tried.foreignOverwrites++;
        tried.inputs++;
      }
    }
    const self = path.join(dir, 'self.jsonl');
    copyFileSync(fixtures('trajectories', 'good', 'chat-messages.jsonl'), self);
    const selfBefore = readFileSync(self, 'utf8');
    await run(['normalize', self, '--out', self, '--force']);
    await run(['build', self, '--out', self, '--force']);
    if (readFileSync(self, 'utf8') !== selfBefore) tried.foreignOverwrites++;

    // 3. Torn sets read back: a fit marked writing, a suite marked writing or with a swapped file.
    const tornFit = nextOut();
    cpSync(fit, tornFit, { recursive: true });
    const setFile = path.join(tornFit, '.aptpace-set.fit.json');
    writeFileSync(setFile, readFileSync(setFile, 'utf8').replace('"complete"', '"writing"'));
    const checked = await run(['check', '--model-file', path.join(tornFit, 'model.json'), '--model', 'model-0009', '--store', store, '--out', nextOut(), '--allow-unproven'], outputs);
    if (checked.code === 0 || !checked.json?.findings.some((f: any) => f.code === 'output-set-torn')) tried.tornAccepted++;
    for (const damage of ['writing', 'swap']) {
      const torn = path.join(nextOut(), 'suite');
      mkdirSync(path.dirname(torn));
      cpSync(suite, torn, { recursive: true });
      const manifest = path.join(torn, 'aptpace-manifest.json');
      if (damage === 'writing') writeFileSync(manifest, readFileSync(manifest, 'utf8').replace('"format"', '"state": "writing", "format"'));
      else writeFileSync(path.join(torn, 'README.md'), 'another emit\n');
      const ref = path.join(dir, `ref-${damage}.yaml`);
      writeFileSync(ref, readFileSync(reference, 'utf8').replace(/path: .*\}/, `path: ${torn}}`));
      const planned = await run(['plan', '--reference', ref, '--out', nextOut()], outputs);
      if (planned.code === 0 || !planned.json?.findings.some((f: any) => f.code === 'suite-set-torn')) tried.tornAccepted++;
      const proxied = await run(['fit', '--store', store, '--suite', torn, '--out', nextOut(), ...fast], outputs);
      if (proxied.code === 0) tried.tornAccepted++;
      tried.inputs += 2;
    }

    // 4. Concurrent writers into one folder: never a mixed set, never another's temp file removed.
    const { OutputFolder, verifyOutputSet } = await import('../../generator/core/kernel/output.js');
    for (let i = 0; i < 20; i++) {
      const o = nextOut();
      const writers = [0, 1, 2].map((w) => new OutputFolder(nodeVfs, o, { force: true, set: 'ingest' }).writeSet({ 'a.bin': `${w}\n`, 'b.bin': `${w}\n`, 'c.bin': `${w}\n` }));
      const settled = await Promise.allSettled(writers);
      const ok = settled.filter((s) => s.status === 'fulfilled').length;
      const refused = settled.filter((s) => s.status === 'rejected' && (s.reason as { code?: string }).code === 'output-locked').length;
      const files = ['a.bin', 'b.bin', 'c.bin'].map((f) => readFileSync(path.join(o, f), 'utf8'));
      if (ok < 1 || ok + refused !== 3 || new Set(files).size !== 1 || (await verifyOutputSet(nodeVfs, o, 'ingest')).length) tried.concurrentMixed++;
      if (readdirSync(o).some((n) => n.endsWith('.tmp') || n === '.aptpace.lock')) tried.concurrentMixed++;
      tried.inputs++;
    }

    // 5. Huge flat and deep inputs; every bad line of a flat one reaches --findings-file.
    const flat = path.join(dir, 'flat.jsonl');
    writeFileSync(flat, `${Array.from({ length: 30_000 }, (_, i) => `{"id": ${i}`).join('\n')}\n`);
    for (const [argv, code] of [
      [['audit', flat], 'question-invalid-json'],
      [['build', flat, '--out', nextOut('.jsonl'), '--no-audit'], 'traj-malformed-json'],
    ] as const) {
      const findingsFile = path.join(dir, `findings-${argv[0]}.jsonl`);
      const r = await run([...argv, '--findings-file', findingsFile], argv[0] === 'build' ? argv[3] : undefined, findingsFile);
      const listed = readFileSync(findingsFile, 'utf8').split('\n').filter((l) => l.includes(`"code":"${code}"`)).length;
      if (listed !== 30_000 || r.code !== 1) tried.findingsLost++;
      tried.inputs++;
    }
    const bigCsv = path.join(dir, 'big.csv');
    writeFileSync(bigCsv, ['model,id,score', ...Array.from({ length: 150_000 }, (_, i) => `m${i % 3},i${i},${(i % 10) / 10}`)].join('\n'));
    const o = nextOut();
    await run(['ingest', '--tables', bigCsv, '--out', o], o);
    const deepLogs = path.join(dir, 'deep-logs');
    cpSync(fixtures('logs', 'harness-output'), deepLogs, { recursive: true });
    for (const f of readdirSync(deepLogs, { recursive: true }) as string[]) {
      if (!/samples_.*\.jsonl$/.test(f)) continue;
      const file = path.join(deepLogs, f);
      writeFileSync(file, readFileSync(file, 'utf8').replace(/"acc": *[^,}]+/, `"acc": ${'['.repeat(5000)}1${']'.repeat(5000)}`));
    }
    const d = nextOut();
    const deep = await run(['ingest', deepLogs, '--out', d], d);
    if (deep.json?.findings.some((f: any) => f.code === 'input-too-deep')) tried.silentLosses++;
    tried.inputs += 3;
    expect(readdirSync(victim, { recursive: true }).filter((n) => !['deeper'].includes(String(n)))).toEqual([]);

    // 6. A subfolder swapped for a link (or moved out) at a random step of a write (its own
    // seed, so the draws of the cases after it stay as they were).
    const steps = ['before-write', 'folders-made', 'temp-opened', 'temp-written', 'published'] as const;
    const raceRand = rng(21);
    for (let i = 0; i < 30; i++) {
      const o = nextOut();
      const away = path.join(dir, `race-${i}`);
      mkdirSync(path.join(o, 'sub'), { recursive: true });
      mkdirSync(away);
      writeFileSync(path.join(away, 'keep.txt'), 'keep\n');
      const when = steps[Math.floor(raceRand() * steps.length)]!;
      const moveOut = raceRand() < 0.5;
      let fired = false;
      const attack = () => {
        if (fired) return;
        fired = true;
        const sub = path.join(o, 'sub');
        renameSync(sub, moveOut ? path.join(away, 'moved') : `${sub}.aside`);
        symlinkSync(moveOut ? path.join(away, 'moved') : away, sub);
      };
      const onStep = (s: string) => void (s === when && attack());
      const racing = {
        ...nodeVfs,
        writeFileAtomic: async (p: string, d: string | Uint8Array, opts?: object) => (when === 'before-write' && attack(), nodeVfs.writeFileAtomic(p, d, { ...opts, onStep })),
      };
      const { OutputFolder } = await import('../../generator/core/kernel/output.js');
      const name = ['a.txt', 'b/c.txt', 'd/e/f.txt'][Math.floor(raceRand() * 3)]!;
      const refused = await new OutputFolder(racing, o, { force: true })
        .write(path.join('sub', name), 'ours\n')
        .then(() => false, (err) => (err as { code?: string }).code === 'output-outside-root');
      const ours = (readdirSync(away, { recursive: true }) as string[]).filter((n) => statSync(path.join(away, n)).isFile() && readFileSync(path.join(away, n), 'utf8') === 'ours\n');
      if (!refused || ours.length || readFileSync(path.join(away, 'keep.txt'), 'utf8') !== 'keep\n') tried.racesWon++;
      tried.inputs++;
    }
  });

  it('integrity checks that cannot be made (no responses, target, prompt or doc; no task hash) are findings, and errors under --strict', async () => {
    const model = fixtures('logs', 'harness-output', 'out', 'model-b');
    const ts = '2026-11-29T08-32-45.130167';
    for (let i = 0; i < 40; i++) {
      const runDir = path.join(inputs, 'skipped', `run${i}`, 'model-b');
      cpSync(model, runDir, { recursive: true });
      const applied = Array.from({ length: 1 + Math.floor(rand() * 2) }, () => {
        const m = pick(SKIP_MUTATIONS);
        const task = m.mcOnly ? pick(['aptd_mc', 'aptd_mc_x']) : pick(['aptd_mc', 'aptd_mc_x', 'aptd_gen']);
        applySkipMutation(m, path.join(runDir, `samples_${task}_${ts}.jsonl`), path.join(runDir, `results_${ts}.json`), task, (n) => Math.floor(rand() * n));
        return m;
      });
      tried.inputs++;
      const o = nextOut();
      const r = await run(['ingest', path.dirname(runDir), '--out', o, '--strict'], o);
      const reported = new Set<string>(r.json?.findings.map((f: any) => f.code));
      const missing = applied.filter((m) => !reported.has(m.expect));
      if (missing.length || r.code === 0) tried.checksSkippedSilently++;
      expect(missing.map((m) => m.name), `run${i}: ${applied.map((m) => m.name).join(' + ')}`).toEqual([]);
      expect(r.code, `run${i}: --strict with a skipped check`).toBe(1);
    }
  });

  it('reports the counts', () => {
    console.log(
      `fuzz: ${tried.inputs} generated inputs, ${tried.invocations} invocations, ${tried.crashes} crashes, ${tried.silentLosses} silent losses, ${tried.escapes} escapes, ${tried.foreignOverwrites} foreign overwrites, ${tried.tornAccepted} torn sets accepted, ${tried.concurrentMixed} mixed concurrent writes, ${tried.checksSkippedSilently} skipped checks not reported, ${tried.findingsLost} findings files missing findings, ${tried.racesWon} link swaps that got a write outside`,
    );
    expect(tried.inputs).toBeGreaterThan(2000);
    expect(tried.crashes).toBe(0);
    expect(tried.silentLosses).toBe(0);
    expect(tried.escapes).toBe(0);
    expect(tried.foreignOverwrites).toBe(0);
    expect(tried.tornAccepted).toBe(0);
    expect(tried.concurrentMixed).toBe(0);
    expect(tried.checksSkippedSilently).toBe(0);
    expect(tried.findingsLost).toBe(0);
    expect(tried.racesWon).toBe(0);
  });
});
