import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryVfs } from '../../generator/core/kernel/memory-vfs.js';
import { loadReviewStatus, renderReviewPage, reviewContentHash } from '../../generator/core/questions/review/index.js';
import type { Finding } from '../../generator/core/kernel/findings.js';
import { mcq } from '../audit/build.js';
import { CLIPPED_TEXT_PROBE, browserAvailable, launchBrowser } from '../helpers/browser.js';
import { tempDir } from '../helpers/tmp.js';

const root = path.resolve(import.meta.dirname, '..', '..');

// The review page in a real browser: its own script under its own CSP, clicks, keys, filters,
// bulk decisions and the exported file that `review --apply` reads.
describe.skipIf(!browserAvailable)('review page in headless Chromium (playwright-core)', () => {
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  beforeAll(async () => {
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  // A reason or option may carry a URL or path with no place to break: it must wrap, not widen the page.
  const LONG_URL = `https://github.com/example-org/example-project/blob/${'0123456789abcdef'.repeat(3)}/src/${'deeply_nested_module_directory/'.repeat(6)}parser.py#L120-L180`;
  const questions = [
    mcq({
      id: 'plan1', kind: 'plan_mcq', task: 'aptpace_swe_plan_mcq', gold: 1,
      prompt: 'Issue: the parser drops trailing commas.\n</script><script>document.title="pwned"</script>\nThe correct next step plan is (',
      answer_stem: 'The correct next step plan is (',
      choices: ['Run the full test suite before reading any code.', 'I need to open `parser.py` and find where trailing commas are handled.', 'Submit the current state without a fix.'],
      build: { seed: '0', template: 'plan_mcq.hbs', operators: ['premature_submit', 'reordered_steps'], choice_sources: ['reordered_steps', 'gold', 'premature_submit'], choice_reasons: [`tests come after locating the code (see ${LONG_URL})`, '', 'nothing has been fixed yet'] },
    }),
    mcq({
      id: 'plan2', kind: 'plan_mcq', task: 'aptpace_swe_plan_mcq', gold: 0, choices: ['a plan', 'another plan'],
      build: { seed: '0', template: 'plan_mcq.hbs', operators: ['borrowed_step'], choice_sources: ['gold', 'borrowed_step'] },
    }),
    mcq({
      id: 'dr1', kind: 'dr_plan_mcq', task: 'aptpace_dr_plan_mcq', gold: 0, choices: ['search for X', 'search for Y'],
      build: { seed: '0', template: 'dr_plan_mcq.hbs', operators: ['borrowed_step'], choice_sources: ['gold', 'borrowed_step'] },
    }),
  ];
  const findings: Finding[] = [{ code: 'audit-option-in-prompt', severity: 'error', path: {}, args: { id: 'plan2' } }];
  questions.push(
    mcq({
      id: 'long1', kind: 'next_action_mcq', task: 'aptpace_swe_next_action_mcq', gold: 0, choices: [`fetch ${LONG_URL}`, `open_file(${'/workspace/'.repeat(20)}x.py)`],
      build: { seed: '0', template: 'next_action_mcq.hbs', operators: ['borrowed_step'], choice_sources: ['gold', 'borrowed_step'], choice_reasons: ['', `the page ${LONG_URL} is never opened`] },
    }),
  );

  it('shows the gold once, stems as sentences, decides by click, key and bulk, and exports what --apply reads; no clipped text at 1400 px', async () => {
    const file = path.join(tempDir(), 'review.html');
    writeFileSync(file, renderReviewPage(questions, new Map(), { findings, statusFile: 'status.jsonl' }));
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, acceptDownloads: true });
    const page = await context.newPage();
    const cspErrors: string[] = [];
    page.on('console', (m) => m.type() === 'error' && cspErrors.push(m.text()));
    page.on('dialog', (d) => void d.accept());
    await page.goto(pathToFileURL(file).href);

    expect(await page.title()).not.toBe('pwned');
    const plan1 = page.locator('article[data-id="plan1"]');
    expect(await plan1.locator('li.gold').innerText()).toContain('✔ correct');
    expect(await plan1.locator('li.gold').innerText()).not.toMatch(/gold/);
    expect(await plan1.locator('li.distractor').first().innerText()).toContain('tests come after locating the code');
    expect(await plan1.locator('p.stem').innerText()).toBe('The correct next step plan is (A/B/C)');

    await plan1.locator('button[data-decide="approved"]').click();
    expect(await plan1.getAttribute('data-status')).toBe('approved');

    await page.locator('body').press('j'); // plan1
    await page.locator('body').press('j'); // plan2
    await page.keyboard.press('r');
    expect(await page.locator('article[data-id="plan2"]').getAttribute('data-status')).toBe('rejected');

    await page.selectOption('#filter-kind', 'dr_plan_mcq');
    expect(await page.locator('#count-shown').innerText()).toBe('1');
    await page.click('#bulk-approve');
    expect(await page.locator('article[data-id="dr1"]').getAttribute('data-status')).toBe('approved');
    await page.selectOption('#filter-kind', '');
    await page.selectOption('#filter-flag', 'audit-option-in-prompt');
    expect(await page.locator('#count-shown').innerText()).toBe('1');
    await page.selectOption('#filter-flag', '');

    const clipped = await page.evaluate(CLIPPED_TEXT_PROBE);
    expect(clipped).toEqual([]);
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(1400);
    if (process.env.APTPACE_UPDATE_SCREENSHOTS === '1') {
      mkdirSync(path.join(root, 'docs', 'screenshots'), { recursive: true });
      await page.screenshot({ path: path.join(root, 'docs', 'screenshots', 'review.png'), fullPage: true });
    }

    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export')]);
    const saved = path.join(tempDir(), 'decisions.jsonl');
    await download.saveAs(saved);
    const applied = await loadReviewStatus(new MemoryVfs({ '/d.jsonl': readFileSync(saved, 'utf8') }), '/d.jsonl');
    expect(applied.findings).toEqual([]);
    expect(Object.fromEntries(applied.statuses)).toEqual({
      plan1: { status: 'approved', content: reviewContentHash(questions[0]!) },
      plan2: { status: 'rejected', content: reviewContentHash(questions[1]!) },
      dr1: { status: 'approved', content: reviewContentHash(questions[2]!) },
    });
    expect(cspErrors.filter((e) => /Content Security Policy/i.test(e))).toEqual([]);
    await context.close();
  }, 60_000);
});
