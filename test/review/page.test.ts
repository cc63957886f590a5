import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { nodeVfs } from '../../generator/core/kernel/node-vfs.js';
import { readQuestions } from '../../generator/core/questions/read-questions.js';
import { auditQuestions } from '../../generator/core/questions/audit/index.js';
import { escapeHtml, jsonForScript, renderReviewPage, reviewContentHash, type ReviewStatus } from '../../generator/core/questions/review/index.js';
import type { Question } from '../../generator/core/questions/types.js';
import { fixtures, hasPython, inCi } from '../helpers/env.js';
import { runPythonText } from '../audit/python.js';

async function load(...names: string[]): Promise<Question[]> {
  return (await readQuestions(nodeVfs, names.map((n) => fixtures('questions', n)))).questions;
}

// Python's own HTML tokenizer walks the page: tags must nest and close, and we collect what a
// browser would execute (script elements, event-handler attributes) plus every data-id.
const PARSE = String.raw`
import json, sys
from html.parser import HTMLParser
VOID = {'meta','link','br','hr','img','input','area','base','col','embed','source','track','wbr'}
class P(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack=[]; self.errors=[]; self.scripts=[]; self.ids=[]; self.handlers=[]; self.csp=None; self.tags={}
        self.in_script=None; self.doctype=False; self.text=[]
    def handle_decl(self, d):
        self.doctype = d.lower()=='doctype html'
    def handle_starttag(self, tag, attrs):
        self.tags[tag]=self.tags.get(tag,0)+1
        a=dict(attrs)
        for k,_ in attrs:
            if k.startswith('on'): self.handlers.append([tag,k])
        if 'data-id' in a and tag=='article': self.ids.append(a['data-id'])
        if tag=='meta' and a.get('http-equiv')=='Content-Security-Policy': self.csp=a.get('content')
        if tag=='script': self.in_script={'type':a.get('type'),'src':a.get('src'),'text':''}
        if tag not in VOID: self.stack.append(tag)
    def handle_endtag(self, tag):
        if tag=='script' and self.in_script is not None:
            self.scripts.append(self.in_script); self.in_script=None
        if not self.stack or self.stack[-1]!=tag: self.errors.append('unexpected </%s> with open %s' % (tag, self.stack[-3:]))
        else: self.stack.pop()
    def handle_data(self, data):
        if self.in_script is not None: self.in_script['text']+=data
        else: self.text.append(data)
p=P(); p.feed(sys.stdin.read()); p.close()
if p.stack: p.errors.append('unclosed %s' % p.stack)
print(json.dumps({'doctype':p.doctype,'errors':p.errors,'scripts':p.scripts,'ids':p.ids,'handlers':p.handlers,'csp':p.csp,'tags':p.tags,'text':''.join(p.text)}))
`;

interface Parsed {
  doctype: boolean;
  errors: string[];
  scripts: Array<{ type: string | null; src: string | null; text: string }>;
  ids: string[];
  handlers: string[][];
  csp: string;
  tags: Record<string, number>;
  text: string;
}

const statuses = new Map<string, ReviewStatus>();

describe('review page', async () => {
  const questions = await load('balanced-plan.jsonl', 'hostile.jsonl', 'leaky.jsonl');
  const hostile = questions.filter((q) => q.prompt.includes('</script>'));
  const first = questions[0]!;
  statuses.set(first.id, { status: 'rejected', note: '</script><b>note</b>' });
  statuses.set('stale-id', { status: 'approved' });
  const audit = auditQuestions(questions);
  const html = renderReviewPage(questions, statuses, { findings: audit.findings, statusFile: 'review/status.jsonl' });

  it('is byte-identical for the same inputs', () => {
    expect(renderReviewPage(questions, statuses, { findings: audit.findings, statusFile: 'review/status.jsonl' })).toBe(html);
  });

  it('is self-contained: no external reference, no network', () => {
    expect(html).not.toMatch(/\b(?:src|href)\s*=\s*["']?(?:https?:)?\/\//i);
    expect(html).not.toMatch(/<link\b/i);
    const style = html.slice(html.indexOf('<style>'), html.indexOf('</style>'));
    expect(style).not.toMatch(/@import|\burl\(/i);
  });

  it('escapes hostile trajectory text everywhere it appears', () => {
    expect(hostile.length).toBeGreaterThan(0);
    expect(html).not.toContain('<script>alert(1)</script>');
    expect(html).not.toContain('<img src=x');
    expect(html).not.toContain('<svg onload');
    expect(html).not.toContain('<b>bold</b>');
    expect(html).not.toContain('<b>note</b>');
    expect(html).toContain('&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('&quot;&gt;&lt;svg onload=alert(1)&gt;');
    // Exactly our two script elements open in the page.
    expect(html.match(/<script\b/gi)).toHaveLength(2);
  });

  it('embeds data that cannot close its script element', () => {
    expect(jsonForScript({ note: '</script><!--' })).toBe('{"note":"\\u003c/script\\u003e\\u003c!--"}');
    expect(JSON.parse(jsonForScript({ note: '</script>&\u2028' }))).toEqual({ note: '</script>&\u2028' });
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
  });

  it.skipIf(!hasPython && !inCi)('parses cleanly, lists every question once, runs only its own hashed script', () => {
    const parsed = runPythonText<Parsed>(PARSE, html);
    expect(parsed.doctype).toBe(true);
    expect(parsed.errors).toEqual([]);
    expect(parsed.tags).toMatchObject({ html: 1, head: 1, body: 1, main: 1, article: questions.length });
    expect(parsed.ids).toEqual(questions.map((q) => q.id));
    expect(parsed.handlers).toEqual([]);
    // The hostile strings survive as visible text, so the reviewer sees what the model would see.
    expect(parsed.text).toContain('</script><script>alert(1)</script>');
    expect(parsed.text).toContain('"><svg onload=alert(1)>');

    expect(parsed.scripts.map((s) => [s.type, s.src])).toEqual([['application/json', null], [null, null]]);
    const data = JSON.parse(parsed.scripts[0]!.text);
    // Only decisions for questions on the page are embedded; the stale one is not.
    expect(data.initial).toEqual({ [first.id]: { status: 'rejected', note: '</script><b>note</b>' } });
    expect(data.statusFile).toBe('review/status.jsonl');

    const hash = `'sha256-${createHash('sha256').update(parsed.scripts[1]!.text, 'utf8').digest('base64')}'`;
    const directives = Object.fromEntries(parsed.csp.split(';').map((d) => d.trim().split(/\s+/)).map(([k, ...v]) => [k, v.join(' ')]));
    expect(directives['default-src']).toBe("'none'");
    expect(directives['script-src']).toBe(hash);
    expect(directives['connect-src']).toBe("'none'");
    expect(parsed.csp).not.toContain('unsafe-inline');
  });

  it('shows the gold, the provenance and the audit flags on each card', () => {
    const leaky = questions.find((q) => audit.findings.some((f) => f.code === 'audit-gold-leaked' && f.args.id === q.id))!;
    const cardOf = (id: string) => html.slice(html.indexOf(`data-id="${id}"`), html.indexOf('</article>', html.indexOf(`data-id="${id}"`)));
    const card = cardOf(leaky.id);
    expect(card).toContain('audit-gold-leaked');
    expect(card).toContain(escapeHtml(leaky.provenance.traj_id));
    expect(card).toContain(escapeHtml(leaky.provenance.source_path));
    if (leaky.format !== 'mcq') throw new Error('fixture changed');
    const goldItem = card.slice(card.indexOf('<li class="gold">'), card.indexOf('</li>', card.indexOf('<li class="gold">')));
    expect(goldItem).toContain(escapeHtml(leaky.choices[leaky.gold]!));
    expect(card.match(/<li class="gold">/g)).toHaveLength(1);
    expect(card).toContain('<details class="prompt">');
  });

  it('marks a question that changed since its review and does not carry the old decision', () => {
    const second = questions[1]!;
    const page = renderReviewPage(questions, new Map([[second.id, { status: 'approved' as const, note: 'fine', content: '0123456789abcdef' }]]));
    const data = JSON.parse(page.match(/id="review-data">([^<]*)</)![1]!);
    expect(data.initial).toEqual({});
    expect(data.contents[second.id]).toBe(reviewContentHash(second));
    const card = page.slice(page.indexOf(`data-id="${second.id}"`), page.indexOf('</article>', page.indexOf(`data-id="${second.id}"`)));
    expect(card).toContain('changed since it was reviewed: an earlier version was approved (fine)');
  });

  it('puts task-level findings that list questions on each listed card', () => {
    const completion = questions.find((q) => q.format === 'completion')!;
    expect(audit.findings.find((f) => f.code === 'audit-target-in-prompt')!.args.ids).toEqual([completion.id]);
    const start = html.indexOf(`data-id="${completion.id}"`);
    expect(html.slice(start, html.indexOf('</article>', start))).toContain('warning[audit-target-in-prompt]: Completion target appears in the prompt');
  });

  it('can cap the prompt shown, keeping its end (the step being asked about)', () => {
    const long = { ...first, prompt: `HEAD-${'x'.repeat(5000)}-TAIL` };
    const capped = renderReviewPage([long], new Map(), { maxPromptChars: 1000 });
    expect(capped).toContain('HEAD-');
    expect(capped).toContain('-TAIL');
    expect(capped).toContain('characters omitted');
    expect(capped).not.toContain('x'.repeat(1001));
  });
});
