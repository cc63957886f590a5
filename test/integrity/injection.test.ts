/**
 * Names from data files reach CI surfaces: summary.md (job summaries, PR comments), report.html
 * and the terminal. None of them may carry markup, script or escape sequences through.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { nodeVfs } from '../../generator/core/kernel/node-vfs.js';
import { saveStore } from '../../generator/core/logs/store.js';
import { syntheticPace } from '../../generator/core/pace/inputs/synthetic.js';
import { escapeMarkdown, renderReportHtml, renderReportMarkdown } from '../../generator/core/report/html.js';
import { escapeTerminal, renderFinding } from '../../generator/core/kernel/render.js';
import { finding } from '../../generator/core/kernel/findings.js';
import { fsFindings } from '../../generator/core/kernel/fs-findings.js';

const dir = tempDir('aptpace-injection-');
const EVIL = 'm<img src=x onerror=alert(1)>\n# Heading\n[click](https://evil.example) ![i](https://evil.example/x.png) @org/team `code` **bold** | cell';

/** What a Markdown renderer could act on, in text that should be literal. */
function expectInert(md: string) {
  expect(md).not.toMatch(/(^|[^\\])<img/i);
  expect(md).not.toMatch(/\n#\s*Heading/);
  expect(md).not.toMatch(/[^\\]\]\(/);
  expect(md).not.toMatch(/(^|[^\\])@org/);
  expect(md).not.toMatch(/(^|[^\\])`code/);
  expect(md).not.toMatch(/(^|[^\\])\*\*bold/);
}

describe('summary.md', () => {
  it('escapes names in every place of the page', () => {
    const page = {
      title: EVIL,
      verdict: { ok: false, text: EVIL },
      notices: [{ level: 'warning' as const, text: EVIL }],
      sections: [{ heading: EVIL, text: EVIL, table: { columns: ['model', 'score'], rows: [[EVIL, 0.5]] } }],
    };
    const md = renderReportMarkdown(page);
    expectInert(md);
    // One line per element still: the table row did not split.
    expect(md.split('\n').filter((l) => l.startsWith('|')).length).toBe(3);
    expect(escapeMarkdown('score < 0.30 on swe-bench')).toBe('score < 0.30 on swe-bench');
  });

  it('check writes an inert summary for a checkpoint whose name is hostile', async () => {
    const syn = syntheticPace({ models: 10, instances: 120, dims: 2, targets: 1, targetInstances: 40, seed: 'inj' });
    syn.matrix.models[9] = { ...syn.matrix.models[9]!, name: EVIL };
    const store = path.join(dir, 'store');
    await saveStore(nodeVfs, store, syn);
    const fit = path.join(dir, 'fit');
    expect((await cli('fit', '--store', store, '--out', fit, '--budget', '20', '--bootstrap', '5', '--nc-h', '2', '--nc-d', '2')).code).toBe(0);
    const out = path.join(dir, 'check');
    const r = await cli('check', '--model-file', path.join(fit, 'model.json'), '--model', EVIL, '--store', store, '--out', out);
    expect(r.stderr).not.toMatch(/crashed/);
    const md = readFileSync(path.join(out, 'summary.md'), 'utf8');
    expect(md).toContain('m\\<img');
    expectInert(md);
    expect(md).not.toMatch(/(^|[^\\])<img/i);
    const html = readFileSync(path.join(out, 'report.html'), 'utf8');
    expect(html).not.toMatch(/<img/i);
    expect(html).toMatch(/<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;|<meta http-equiv="Content-Security-Policy" content="default-src &apos;none&apos;|<meta http-equiv="Content-Security-Policy" content="default-src 'none'/);
  });
});

describe('report.html', () => {
  it('carries a strict CSP whose style hash matches the one inline stylesheet', () => {
    const html = renderReportHtml({ title: 't', sections: [] });
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)![1]!.replace(/&#39;|&apos;/g, "'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'none'");
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)![1]!;
    expect(csp).toContain(`'sha256-${createHash('sha256').update(style, 'utf8').digest('base64')}'`);
    expect(html.match(/<style>/g)!.length).toBe(1);
    expect(html).not.toMatch(/style="/);
  });
});

describe('terminal', () => {
  const ANSI = 'x\u001b[31mred\u001b]0;title\u0007\u009b2J\r\nfake line';
  it('a finding is one line with every control character escaped', () => {
    const text = renderFinding(finding(fsFindings, 'fs-missing', { file: ANSI }, { path: ANSI }));
    expect(text).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    expect(text).toContain('\\x1b[31m');
    expect(escapeTerminal('a\tb\nc\u001b')).toBe('a\tb\nc\\x1b');
  });

  it('the CLI escapes names in findings and in its summary text', async () => {
    const file = path.join(dir, `evil\u001b[2J\u001b]8;;x\u0007.jsonl`);
    writeFileSync(file, 'not json\n');
    const r = await cli('inspect', file);
    expect(r.code).toBe(1);
    expect(`${r.stdout}${r.stderr}`).not.toMatch(/[\u001b\u0007\u009b]/);
    expect(r.stderr).toContain('\\x1b[2J');
  });
});
