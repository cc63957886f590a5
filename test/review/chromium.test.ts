import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { renderReviewPage } from '../../generator/core/questions/review/index.js';
import { mcq } from '../audit/build.js';
import { tempDir } from '../helpers/tmp.js';

import { CHROMIUM as chromium, browserAvailable } from '../helpers/browser.js';

// Runs where Chromium is installed and always in CI (.ci/run installs it): the page's script
// must run under its own Content-Security-Policy and paint the statuses it was built with.
describe.skipIf(!browserAvailable)('review page in headless Chromium', () => {
  it('runs its script under its CSP and paints the recorded statuses', () => {
    const qs = [
      mcq({ id: 'ok1', prompt: 'p </script><script>document.title="pwned"</script>', choices: ['a', 'b'], gold: 0 }),
      mcq({ id: 'no2', choices: ['a', 'b'], gold: 1 }),
    ];
    const file = path.join(tempDir(), 'review.html');
    writeFileSync(file, renderReviewPage(qs, new Map([['ok1', { status: 'approved' }]])));
    const run = spawnSync(chromium, ['--headless', '--no-sandbox', '--disable-gpu', '--dump-dom', pathToFileURL(file).href], { encoding: 'utf8', timeout: 60_000 });
    expect(run.status).toBe(0);
    const dom = run.stdout;
    expect(dom).toMatch(/<article[^>]*data-id="ok1"[^>]*data-status="approved"|<article[^>]*data-status="approved"[^>]*data-id="ok1"/);
    expect(dom).toMatch(/id="count-approved">1</);
    expect(dom).not.toMatch(/<title>pwned<\/title>/);
    expect(dom).toContain('&lt;/script&gt;&lt;script&gt;');
  });
});
