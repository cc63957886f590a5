import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { MemoryVfs } from '../../generator/core/kernel/memory-vfs.js';
import { loadReviewStatus, renderReviewPage, reviewContentHash, type ReviewStatus } from '../../generator/core/questions/review/index.js';
import { mcq } from '../audit/build.js';

/**
 * A minimal DOM: just the calls the review script makes, built from the rendered page, so the
 * page's real script runs in a VM context. No browser is installed here; this exercises the
 * decision logic, persistence and the export format end to end.
 */
class FakeElement {
  attributes = new Map<string, string>();
  listeners = new Map<string, Array<() => void>>();
  children: FakeElement[] = [];
  textContent = '';
  value = '';
  hidden = false;
  classList = { add: (c: string) => void this.classes.push(c), remove: (c: string) => void this.classes.splice(this.classes.indexOf(c) >>> 0, 1) };
  focus() {}
  scrollIntoView() {}
  href = '';
  download = '';
  clicked = 0;
  constructor(readonly tag: string, readonly classes: string[] = []) {}
  getAttribute(name: string) {
    return this.attributes.get(name) ?? null;
  }
  setAttribute(name: string, value: string) {
    this.attributes.set(name, String(value));
  }
  addEventListener(type: string, fn: () => void) {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), fn]);
  }
  fire(type: string) {
    for (const fn of this.listeners.get(type) ?? []) fn();
  }
  matches(selector: string): boolean {
    if (selector === 'button[data-decide]') return this.tag === 'button' && this.attributes.has('data-decide');
    const [tag, cls] = selector.split('.');
    return (!tag || tag === this.tag) && (!cls || this.classes.includes(cls));
  }
  querySelectorAll(selector: string): FakeElement[] {
    const out: FakeElement[] = [];
    const walk = (e: FakeElement) => e.children.forEach((c) => (c.matches(selector) && out.push(c), walk(c)));
    walk(this);
    return out;
  }
  querySelector(selector: string) {
    return this.querySelectorAll(selector)[0] ?? null;
  }
  click() {
    this.clicked++;
  }
  remove() {}
  appendChild(child: FakeElement) {
    this.children.push(child);
  }
}

const unescape = (s: string) => s.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

function boot(html: string, storage: Map<string, string>) {
  const byId = new Map<string, FakeElement>();
  const body = new FakeElement('body');
  for (const id of ['count-approved', 'count-rejected', 'count-pending', 'count-local', 'count-shown', 'export', 'forget', 'bulk-approve', 'bulk-reject', 'filter-task', 'filter-kind', 'filter-operator', 'filter-flag', 'filter-status', 'filter-text']) {
    byId.set(id, new FakeElement(id.startsWith('filter') ? 'select' : 'span'));
  }
  const data = new FakeElement('script');
  data.textContent = html.match(/<script type="application\/json" id="review-data">([^<]*)<\/script>/)![1]!;
  byId.set('review-data', data);
  const cards: FakeElement[] = [];
  for (const m of html.matchAll(/<article class="question"([^>]*)>/g)) {
    const card = new FakeElement('article', ['question']);
    for (const a of m[1]!.matchAll(/ (data-[a-z]+)="([^"]*)"/g)) card.setAttribute(a[1]!, unescape(a[2]!));
    card.children.push(new FakeElement('span', ['status-value']), new FakeElement('textarea', ['note']));
    for (const d of ['approved', 'rejected', 'pending']) {
      const b = new FakeElement('button');
      b.setAttribute('data-decide', d);
      card.children.push(b);
    }
    cards.push(card);
  }
  body.children.push(...cards);
  const downloads: Array<{ name: string; text: string }> = [];
  const blobs = new Map<string, string>();
  const keyListeners: Array<(e: unknown) => void> = [];
  const document = {
    addEventListener: (type: string, fn: (e: unknown) => void) => void (type === 'keydown' && keyListeners.push(fn)),
    getElementById: (id: string) => byId.get(id) ?? null,
    querySelectorAll: (sel: string) => body.querySelectorAll(sel),
    createElement: (tag: string) => {
      const a = new FakeElement(tag);
      a.click = () => downloads.push({ name: a.download, text: blobs.get(a.href)! });
      return a;
    },
    body,
    activeElement: null,
  };
  const alerts: string[] = [];
  const window = {
    localStorage: { getItem: (k: string) => storage.get(k) ?? null, setItem: (k: string, v: string) => void storage.set(k, v) },
    alert: (m: string) => alerts.push(m),
    confirm: () => true,
  };
  class Blob {
    constructor(readonly parts: string[]) {}
  }
  let n = 0;
  const URL = {
    createObjectURL: (b: Blob) => {
      const url = `blob:${n++}`;
      blobs.set(url, b.parts.join(''));
      return url;
    },
    revokeObjectURL: () => {},
  };
  const script = html.match(/<script>([\s\S]*)<\/script>\n<\/body>/)![1]!;
  runInNewContext(script, { document, window, Blob, URL, setTimeout: (f: () => void) => f(), JSON });
  const card = (id: string) => cards.find((c) => c.getAttribute('data-id') === id)!;
  const decide = (id: string, status: string, note = '') => {
    card(id).querySelector('textarea.note')!.value = note;
    card(id).querySelectorAll('button[data-decide]').find((b) => b.getAttribute('data-decide') === status)!.fire('click');
  };
  const press = (key: string) => keyListeners.forEach((fn) => fn({ key, target: body, preventDefault() {} }));
  return { byId, cards, card, decide, downloads, alerts, press };
}

describe('review page script', () => {
  const qs = ['q1', 'q2', 'q3'].map((id, i) => mcq({ id, task: i < 2 ? 'aptpace_swe_plan_mcq' : 'aptpace_dr_plan_mcq', choices: ['a', 'b'], gold: 0 }));
  const initial = new Map<string, ReviewStatus>([['q1', { status: 'approved' }]]);
  const html = renderReviewPage(qs, initial);

  it('shows the status file\'s decisions, records new ones, and exports only those as JSONL that --apply reads', async () => {
    const storage = new Map<string, string>();
    const page = boot(html, storage);
    expect(page.card('q1').getAttribute('data-status')).toBe('approved');
    expect(page.card('q2').getAttribute('data-status')).toBe('unreviewed');
    expect(String(page.byId.get('count-approved')!.textContent)).toBe('1');

    page.decide('q2', 'rejected', 'option B is also right');
    page.decide('q3', 'approved');
    page.decide('q1', 'approved'); // same as the file: not a new decision
    expect(page.card('q2').getAttribute('data-status')).toBe('rejected');
    expect(String(page.byId.get('count-local')!.textContent)).toBe('2');

    page.byId.get('export')!.fire('click');
    expect(page.downloads).toHaveLength(1);
    expect(page.downloads[0]!.name).toBe('review-decisions.jsonl');
    const exported = await loadReviewStatus(new MemoryVfs({ '/d.jsonl': page.downloads[0]!.text }), '/d.jsonl');
    expect(exported.findings).toEqual([]);
    expect(Object.fromEntries(exported.statuses)).toEqual({
      q2: { status: 'rejected', note: 'option B is also right', content: reviewContentHash(qs[1]!) },
      q3: { status: 'approved', content: reviewContentHash(qs[2]!) },
    });
  });

  it('keeps decisions across reloads of the same set, and forgets them on request', () => {
    const storage = new Map<string, string>();
    boot(html, storage).decide('q2', 'pending', 'ask the author');
    const reloaded = boot(html, storage);
    expect(reloaded.card('q2').getAttribute('data-status')).toBe('pending');
    expect(reloaded.card('q2').querySelector('textarea.note')!.value).toBe('ask the author');
    reloaded.byId.get('forget')!.fire('click');
    expect(reloaded.card('q2').getAttribute('data-status')).toBe('unreviewed');
    reloaded.byId.get('export')!.fire('click');
    expect(reloaded.downloads).toEqual([]);
    expect(reloaded.alerts).toHaveLength(1);
  });

  it('drops local decisions taken on another version of a question', () => {
    const storage = new Map<string, string>();
    boot(html, storage).decide('q2', 'approved');
    const changed = qs.map((q) => (q.id === 'q2' && q.format === 'mcq' ? { ...q, choices: ['a', 'c'] } : q));
    const page = boot(renderReviewPage(changed, initial), storage);
    expect(page.card('q2').getAttribute('data-status')).toBe('unreviewed');
    page.decide('q3', 'rejected'); // saving other decisions must not erase the set-aside one
    // Not destroyed, though: the page of the version it was made on still shows it.
    expect(boot(html, storage).card('q2').getAttribute('data-status')).toBe('approved');
  });

  it('filters by task and status', () => {
    const page = boot(html, new Map());
    page.byId.get('filter-task')!.value = 'aptpace_dr_plan_mcq';
    page.byId.get('filter-task')!.fire('input');
    expect(page.cards.filter((c) => !c.hidden).map((c) => c.getAttribute('data-id'))).toEqual(['q3']);
    page.byId.get('filter-task')!.value = '';
    page.byId.get('filter-status')!.value = 'open';
    page.byId.get('filter-status')!.fire('input');
    expect(page.cards.filter((c) => !c.hidden).map((c) => c.getAttribute('data-id'))).toEqual(['q2', 'q3']);
  });

  it('filters by kind, operator and audit flag, bulk-decides only the shown cards, and decides by keyboard', () => {
    const mixed = [
      mcq({ id: 'm1', task: 'aptpace_swe_plan_mcq', kind: 'plan_mcq', choices: ['a', 'b'], gold: 0, build: { seed: '0', template: 't', operators: ['borrowed_step'] } }),
      mcq({ id: 'm2', task: 'aptpace_swe_plan_mcq', kind: 'plan_mcq', choices: ['a', 'b'], gold: 0, build: { seed: '0', template: 't', operators: ['wrong_tool'] } }),
      mcq({ id: 'm3', task: 'aptpace_dr_plan_mcq', kind: 'dr_plan_mcq', choices: ['a', 'b'], gold: 0, build: { seed: '0', template: 't', operators: ['borrowed_step', 'wrong_tool'] } }),
    ];
    const findings = [{ code: 'audit-option-in-prompt', severity: 'error' as const, path: {}, args: { id: 'm2' } }];
    const page = boot(renderReviewPage(mixed, new Map(), { findings }), new Map());
    const shown = () => page.cards.filter((c) => !c.hidden).map((c) => c.getAttribute('data-id'));
    const set = (id: string, value: string) => { page.byId.get(id)!.value = value; page.byId.get(id)!.fire('input'); };
    set('filter-kind', 'plan_mcq');
    expect(shown()).toEqual(['m1', 'm2']);
    set('filter-operator', 'borrowed_step');
    expect(shown()).toEqual(['m1']);
    set('filter-kind', '');
    expect(shown()).toEqual(['m1', 'm3']);
    page.byId.get('bulk-approve')!.fire('click');
    expect(page.cards.map((c) => c.getAttribute('data-status'))).toEqual(['approved', 'unreviewed', 'approved']);
    set('filter-operator', '');
    set('filter-flag', '*');
    expect(shown()).toEqual(['m2']);
    set('filter-flag', '-');
    expect(shown()).toEqual(['m1', 'm3']);
    set('filter-flag', '');
    page.press('j'); page.press('j'); page.press('r');
    expect(page.card('m2').getAttribute('data-status')).toBe('rejected');
    page.press('k'); page.press('p');
    expect(page.card('m1').getAttribute('data-status')).toBe('pending');
  });
});
