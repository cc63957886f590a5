/**
 * The check report and the checkpoint-series report end to end: fit on a synthetic training store,
 * check checkpoints with long names through `check --history`, plot the series with
 * `aptpace report`, and load both pages in headless Chromium at 1400 px: every chart's SVG is
 * there, no text is clipped, and reruns are byte-identical. With APTPACE_UPDATE_SCREENSHOTS=1
 * the pages are also saved as docs/screenshots/report.png and series.png.
 */
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { browserAvailable, CLIPPED_TEXT_PROBE, launchBrowser } from '../helpers/browser.js';
import { nodeVfs } from '../../generator/core/kernel/node-vfs.js';
import { saveStore } from '../../generator/core/logs/store.js';
import { syntheticPace } from '../../generator/core/pace/inputs/synthetic.js';
import type { ScoreMatrix } from '../../generator/core/logs/matrix.js';

const dir = tempDir('aptpace-pages-');
const store = path.join(dir, 'store');
const trainStore = path.join(dir, 'train-store');
const modelFile = path.join(dir, 'fit', 'model.json');
const history = path.join(dir, 'reports', 'history.jsonl');
const referenceFile = path.join(dir, 'reference.yaml');
const TRAIN = 30;
/** Long checkpoint names: the old hand-written charts clipped "new-checkpoint (predi…". */
const CHECKPOINTS = ['pretrain-7b-run42/step-01000-long-name', 'pretrain-7b-run42/step-02000-long-name', 'pretrain-7b-run42/step-03000-long-name', 'pretrain-7b-run42/step-04000-long-name'];
const read = (...p: string[]) => readFileSync(path.join(...p), 'utf8');

function rows(matrix: ScoreMatrix, from: number, to: number): ScoreMatrix {
  const S = matrix.instances.length;
  return { ...matrix, models: matrix.models.slice(from, to), values: matrix.values.slice(from * S, to * S), observed: matrix.observed.slice(from * S, to * S) };
}

beforeAll(async () => {
  const syn = syntheticPace({ models: TRAIN + CHECKPOINTS.length, instances: 600, dims: 2, targets: 2, targetInstances: 100, seed: 'pages' });
  const names = new Map(syn.matrix.models.slice(TRAIN).map((m, i) => [m.name, CHECKPOINTS[i]!]));
  const matrix = { ...syn.matrix, models: syn.matrix.models.map((m) => ({ ...m, name: names.get(m.name) ?? m.name })) };
  const targets = syn.targets.map((t) => ({ ...t, scores: Object.fromEntries(Object.entries(t.scores).filter(([m]) => !names.has(m))), perInstance: Object.fromEntries(Object.entries(t.perInstance ?? {}).filter(([m]) => !names.has(m))) }));
  await saveStore(nodeVfs, trainStore, { matrix: rows(matrix, 0, TRAIN), targets });
  // The series store holds the training models and the checkpoints, as a team's store would.
  await saveStore(nodeVfs, store, { matrix, targets });
  const fitted = await cli('fit', '--store', trainStore, '--out', path.join(dir, 'fit'), '--budget', '40', '--bootstrap', '30', '--nc-h', '2', '--nc-d', '2', '--quiet');
  expect(fitted.code, fitted.stderr).toBe(0);
  // The first two checkpoints get their step from the reference file, the last two from check --history.
  const refs = matrix.models.slice(0, 4).map((m) => `  - {name: ${m.name}, model: hf, model_args: pretrained=${m.name}, scores: {agentic-0: 0.5, agentic-1: 0.5}}`);
  const ckpts = CHECKPOINTS.slice(0, 2).map((c, i) => `  - {name: ${c}, model: hf, model_args: pretrained=/ckpt/${i}, step: ${(i + 1) * 1000}}`);
  writeFileSync(referenceFile, `format: aptpace-reference/1\nscore_scale: fraction\nreferences:\n${refs.join('\n')}\ncheckpoints:\n${ckpts.join('\n')}\n`);
  for (const [i, c] of CHECKPOINTS.slice(2).entries()) {
    const res = await cli('check', '--model-file', modelFile, '--model', c, '--store', store, '--history', history, '--step', String((i + 3) * 1000), '--min-score', 'agentic-0=30', '--out', path.join(dir, 'check', String(i)));
    expect(res.code, res.stderr).toBeLessThan(2);
  }
}, 120_000);

const series = (out: string, ...extra: string[]) => cli('report', '--store', store, '--model-file', modelFile, '--reference', referenceFile, '--history', history, '--out', out, '--json', ...extra);

describe('aptpace report (checkpoint series)', () => {
  it('predicts every checkpoint in the store (not the training or reference models), ordered by step from the reference file and the history', async () => {
    const res = await series(path.join(dir, 'series'));
    expect(res.code, res.stderr).toBe(0);
    expect(res.json.data.axis).toBe('step');
    expect(res.json.data.checkpoints.map((c: any) => [c.model, c.step])).toEqual(CHECKPOINTS.map((c, i) => [c, (i + 1) * 1000]));
    // The series' prediction of a checked checkpoint is check's own (same model file, same scores).
    const checked = JSON.parse(read(dir, 'check', '1', 'result.json'));
    const mine = res.json.data.checkpoints[3].targets;
    expect(mine.map((t: any) => [t.predicted, t.interval])).toEqual(checked.targets.map((t: any) => [t.predicted, t.interval]));
    // A flagged prediction says why, in the JSON and in both pages.
    const checkedFlags = mine.map((t: any) => t.flags.some((f: string) => /no demonstrated skill|outside the training range/.test(f)));
    expect(checkedFlags).toEqual(checked.targets.map((t: any) => t.concerns.length > 0));
    expect(res.json.data.references.map((r: any) => r.model)).toHaveLength(TRAIN);
    const charts = readdirSync(path.join(dir, 'series', 'charts')).sort();
    expect(charts).toEqual(['series-1-agentic-0.vl.json', 'series-2-agentic-1.vl.json']);
    const html = read(dir, 'series', 'report.html');
    expect(html.match(/<svg/g)).toHaveLength(2);
    // The strict CSP (no inline style attributes, no scripts) holds for the charts too.
    expect(html).toContain('http-equiv="Content-Security-Policy"');
    expect(html).not.toMatch(/\sstyle="|<script|href=/);
    expect(read(dir, 'series', 'summary.md')).toContain('pretrain-7b-run42/step-04000-long-name');
  }, 60_000);

  it('a checkpoint only the history knows is shown as recorded, and said so; no checkpoint at all is an error', async () => {
    const onlyTrain = await cli('report', '--store', trainStore, '--model-file', modelFile, '--history', history, '--out', path.join(dir, 'series-hist'), '--json');
    expect(onlyTrain.code, onlyTrain.stderr).toBe(0);
    expect(onlyTrain.json.data.checkpoints.map((c: any) => [c.model, c.source])).toEqual(CHECKPOINTS.slice(2).map((c) => [c, 'history']));
    expect(onlyTrain.json.findings.map((f: any) => f.code)).toContain('report-history-only');
    const none = await cli('report', '--store', trainStore, '--model-file', modelFile, '--out', path.join(dir, 'series-none'), '--json');
    expect(none.code).toBe(1);
    expect(none.json.findings.map((f: any) => f.code)).toContain('report-no-checkpoints');
    // Unreadable inputs are findings (exit 1), never a crash.
    const noRef = await cli('report', '--store', store, '--model-file', modelFile, '--reference', path.join(dir, 'missing.yaml'), '--out', path.join(dir, 'series-noref'), '--json');
    expect([noRef.code, noRef.json.findings.map((f: any) => f.code)]).toEqual([1, ['reference-unreadable']]);
    const noStore = await cli('report', '--store', path.join(dir, 'no-store'), '--model-file', modelFile, '--out', path.join(dir, 'series-nostore'), '--json');
    expect(noStore.code).toBe(1);
  }, 60_000);

  it('reruns give byte-identical files', async () => {
    const a = path.join(dir, 'series-a');
    const b = path.join(dir, 'series-b');
    await series(a);
    await series(b);
    for (const f of ['report.html', 'summary.md', 'series.json', 'charts/series-1-agentic-0.vl.json']) expect(readFileSync(path.join(a, f)).equals(readFileSync(path.join(b, f))), f).toBe(true);
  }, 60_000);
});

describe('check report and series report in a real browser', () => {
  it.skipIf(!browserAvailable)('at 1400 px: every chart drawn, no clipped text (screenshots with APTPACE_UPDATE_SCREENSHOTS=1)', async () => {
    await series(path.join(dir, 'series-browser'));
    const pages = [
      { file: path.join(dir, 'check', '1', 'report.html'), charts: readdirSync(path.join(dir, 'check', '1', 'charts')).length, shot: 'report.png' },
      { file: path.join(dir, 'series-browser', 'report.html'), charts: 2, shot: 'series.png' },
    ];
    const browser = await launchBrowser();
    try {
      for (const p of pages) {
        const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
        const refused: string[] = [];
        page.on('console', (m) => {
          if (/Content Security Policy/i.test(m.text())) refused.push(m.text());
        });
        await page.goto(pathToFileURL(p.file).href);
        expect(await page.locator('figure.chart svg').count(), p.file).toBe(p.charts);
        expect(await page.evaluate(CLIPPED_TEXT_PROBE), p.file).toEqual([]);
        // Text inside each chart stays inside the chart (vega lays labels out; none is cut at the SVG edge).
        const outside = await page.evaluate(`(() => {
          const bad = [];
          for (const svg of document.querySelectorAll('figure.chart svg')) {
            const box = svg.getBoundingClientRect();
            for (const t of svg.querySelectorAll('text')) {
              const r = t.getBoundingClientRect();
              if (t.textContent && (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1)) bad.push(t.textContent);
            }
          }
          return bad;
        })()`);
        expect(outside, p.file).toEqual([]);
        expect(refused, p.file).toEqual([]);
        if (process.env.APTPACE_UPDATE_SCREENSHOTS === '1') await page.screenshot({ path: path.join('docs', 'screenshots', p.shot), fullPage: true });
        await page.close();
      }
    } finally {
      await browser.close();
    }
  }, 120_000);
});
