import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import Handlebars from 'handlebars';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/env.js';

/**
 * templates/prompts/zh/ holds one Chinese template per English template, with its own
 * partials/ (the step labels are prose too). Same variables, same partials, same blocks:
 * the builder can render either from the same context.
 */
const EN = path.join(repoRoot, 'templates', 'prompts');
const ZH = path.join(EN, 'zh');

const hbsIn = (dir: string) => readdirSync(dir).filter((f) => f.endsWith('.hbs')).sort();
/** As the renderer reads them: one trailing newline (there for editors) dropped. */
const read = (dir: string, file: string) => readFileSync(path.join(dir, file), 'utf8').replace(/\n$/, '');

/** Every variable path, helper, partial and block a template uses, with partials expanded from its own folder. */
function uses(root: string, file: string, seen = new Set<string>()): Set<string> {
  const out = new Set<string>();
  const partials = hbsIn(path.join(root, 'partials'));
  const visit = (node: any): void => {
    if (!node || typeof node !== 'object') return;
    if (Array.isArray(node)) return node.forEach(visit);
    if (node.type === 'PathExpression') out.add(`var:${node.original}`);
    if (node.type === 'PartialStatement' && node.name.type === 'PathExpression') {
      const name = node.name.original as string;
      out.add(`partial:${name}`);
      if (!seen.has(name) && partials.includes(`${name}.hbs`)) {
        seen.add(name);
        visit(Handlebars.parse(read(path.join(root, 'partials'), `${name}.hbs`)));
      }
    }
    if (node.type === 'BlockStatement' || node.type === 'DecoratorBlock') out.add(`block:${node.path.original}`);
    for (const key of Object.keys(node)) if (key !== 'loc') visit(node[key]);
  };
  visit(Handlebars.parse(read(root, file)));
  return out;
}

function render(dir: string, file: string, context: object): string {
  const hb = Handlebars.create();
  for (const p of hbsIn(path.join(dir, 'partials'))) hb.registerPartial(p.slice(0, -4), read(path.join(dir, 'partials'), p));
  hb.registerHelper('step_json', (v: any) => `⟦step ${v.number}⟧`);
  return hb.compile(read(dir, file), { noEscape: true, strict: false })(context);
}

/** Every value the templates can show, each a distinct marker so it can be counted in the output. */
function sampleContext(flags: { thought_action: boolean }): object {
  const step = (n: number) => ({ number: n, thought: `⟦thought ${n}⟧`, raw: `⟦raw ${n}⟧`, plan: `⟦plan ${n}⟧`, action: `⟦action ${n}⟧`, observation: `⟦obs ${n}⟧` });
  const question = (tag: string) => ({
    goal: `⟦goal ${tag}⟧`,
    repo: `⟦repo ${tag}⟧`,
    tools: `⟦tools ${tag}⟧`,
    execution_plan: `⟦plan-exec ${tag}⟧`,
    omitted: 4,
    thought_action: flags.thought_action,
    history: [step(5), step(6)],
    choices: [
      { letter: 'A', text: `⟦choice A ${tag}⟧` },
      { letter: 'B', text: `⟦choice B ${tag}⟧` },
    ],
    answer_stem: `⟦stem ${tag}⟧`,
  });
  return { shots: [{ ...question('shot'), answer: '⟦answer shot⟧' }], question: question('q') };
}

const markers = (text: string) => (text.match(/⟦[^⟧]*⟧|\b4\b/g) ?? []).join('|');
const cjkShare = (text: string) => {
  const letters = [...text].filter((c) => /\p{L}/u.test(c));
  return letters.filter((c) => /[\u4e00-\u9fff]/.test(c)).length / Math.max(1, letters.length);
};

describe('Chinese prompt templates', () => {
  const english = hbsIn(EN);

  it('exist for every English template and partial, and nothing else', () => {
    expect(english.length).toBeGreaterThan(5);
    expect(hbsIn(ZH)).toEqual(english);
    expect(hbsIn(path.join(ZH, 'partials'))).toEqual(hbsIn(path.join(EN, 'partials')));
  });

  for (const file of hbsIn(EN)) {
    it(`${file}: same variables, helpers, partials and blocks as the English one`, () => {
      expect([...uses(ZH, file)].sort()).toEqual([...uses(EN, file)].sort());
    });

    it(`${file}: renders every value in the same order as the English one, around Chinese prose`, () => {
      for (const thought_action of [false, true]) {
        const context = sampleContext({ thought_action });
        const en = render(EN, file, context);
        const zh = render(ZH, file, context);
        expect(markers(zh)).toEqual(markers(en));
        expect(markers(zh).length).toBeGreaterThan(0);
        // The prose around the values is Chinese, not English left untranslated.
        const prose = zh.replace(/⟦[^⟧]*⟧/g, '');
        expect(cjkShare(prose), prose).toBeGreaterThan(0.9);
        // It still ends exactly at the answer stem, as the English template does.
        expect(zh.endsWith('⟦stem q⟧')).toBe(true);
        expect(en.endsWith('⟦stem q⟧')).toBe(true);
      }
    });
  }
});
