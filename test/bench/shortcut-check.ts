/**
 * A quick model-free shortcut check of a built question set (scored split only), per task:
 * longest option, most similar to the other options (word Jaccard and character-3-gram
 * cosine), most on-topic option (largest share of its words found in the question segment), and the combined rule of issue 9 — drop options copied from the question segment,
 * drop deep-research options whose tool is not offered, then pick the most similar to the others.
 * Not the audit (generator/core/questions/audit is); a builder-side gauge.
 *
 *   npx tsx test/bench/shortcut-check.ts questions.jsonl
 */
import { readFileSync } from 'node:fs';
import { normaliseChoice } from '../../generator/core/questions/normalise.js';

interface Q { task: string; prompt: string; choices?: string[]; gold?: number; split?: string; question_start?: number; answer_stem: string; build: { offered_tools?: string[] } }

const words = (t: string) => new Set(t.toLowerCase().match(/[\p{L}\p{N}_]+/gu)?.flatMap((w) => (/[\u3400-\u9fff]/.test(w) ? [...w] : [w])) ?? []);
const jac = (a: Set<string>, b: Set<string>) => { let i = 0; for (const x of a) if (b.has(x)) i++; return a.size + b.size === 0 ? 1 : i / (a.size + b.size - i); };
function grams(t: string): Map<string, number> { const m = new Map<string, number>(); const s = t.toLowerCase(); for (let i = 0; i + 3 <= s.length; i++) { const g = s.slice(i, i + 3); m.set(g, (m.get(g) ?? 0) + 1); } return m; }
function cos(a: Map<string, number>, b: Map<string, number>) { let d = 0, na = 0, nb = 0; for (const [k, v] of a) { na += v * v; d += v * (b.get(k) ?? 0); } for (const v of b.values()) nb += v * v; return na && nb ? d / Math.sqrt(na * nb) : 0; }

function mostSimilar(options: string[], among: number[], sim: (i: number, j: number) => number): number {
  let best = among[0]!, bs = -1;
  for (const i of among) { let s = 0; for (let j = 0; j < options.length; j++) if (j !== i) s += sim(i, j); if (s > bs + 1e-12) { bs = s; best = i; } }
  return best;
}

function segmentOf(q: Q): string {
  if (q.question_start !== undefined) return q.prompt.slice(q.question_start);
  // Older builds: the question follows the last solved example, which ends with the stem, a letter and ")\n\n".
  const stems = [...q.prompt.matchAll(new RegExp(q.answer_stem.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + '[A-Z]\\)\\n\\n', 'g'))];
  const last = stems[stems.length - 1];
  return last ? q.prompt.slice(last.index! + last[0].length) : q.prompt;
}

function toolOf(option: string): string | null {
  try { const v = JSON.parse(option) as { execution?: { name?: string } }; return v.execution?.name ?? null; } catch { return null; }
}

function offeredOf(q: Q, segment: string): Set<string> | null {
  if (q.build.offered_tools) return new Set(q.build.offered_tools);
  const at = segment.indexOf('Tool set:');
  if (at < 0) return null;
  return new Set([...segment.slice(at).matchAll(/["']name["']:\s*["']([^"']+)["']/g)].map((m) => m[1]!));
}

const rows = readFileSync(process.argv[2]!, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Q).filter((q) => q.choices && (q.split ?? 'test') === 'test');
const tasks = new Map<string, Q[]>();
for (const q of rows) tasks.set(q.task, [...(tasks.get(q.task) ?? []), q]);
console.log('| task | n | chance | longest | similar (word) | similar (3-gram) | most on-topic | copied opts | untool opts | combined | combined − chance |');
console.log('|---|---|---|---|---|---|---|---|---|---|---|');
for (const [task, qs] of [...tasks].sort()) {
  let chance = 0, longest = 0, simW = 0, simG = 0, topic = 0, combined = 0, copied = 0, untool = 0, options = 0;
  for (const q of qs) {
    const o = q.choices!;
    const k = o.length;
    chance += 1 / k;
    options += k - 1;
    const seg = segmentOf(q);
    const choicesAt = seg.lastIndexOf('\n(A) ');
    const context = normaliseChoice(choicesAt >= 0 ? seg.slice(0, choicesAt) : seg);
    const all = o.map((_, i) => i);
    let L = 0; o.forEach((x, i) => { if (x.length > o[L]!.length) L = i; });
    if (L === q.gold) longest++;
    const W = o.map(words), G = o.map(grams);
    if (mostSimilar(o, all, (i, j) => jac(W[i]!, W[j]!)) === q.gold) simW++;
    if (mostSimilar(o, all, (i, j) => cos(G[i]!, G[j]!)) === q.gold) simG++;
    // Topic relevance: the share of an option's words found in the question segment before the options.
    const ctxWords = words(context);
    const share = (i: number) => { const w = [...W[i]!].filter((x) => x.length >= 3 && !['planning', 'execution', 'name', 'args', 'text', 'url', 'question'].includes(x)); return w.length ? w.filter((x) => ctxWords.has(x)).length / w.length : 0; };
    let T = 0; o.forEach((_, i) => { if (share(i) > share(T)) T = i; });
    if (T === q.gold) topic++;
    const offered = offeredOf(q, seg);
    const survivors = all.filter((i) => {
      const isCopy = context.includes(normaliseChoice(o[i]!));
      const tool = toolOf(o[i]!);
      const badTool = offered !== null && tool !== null && !offered.has(tool);
      if (i !== q.gold) { if (isCopy) copied++; if (badTool) untool++; }
      return !isCopy && !badTool;
    });
    if (survivors.length === 0) combined += 1 / k;
    else if (mostSimilar(o, survivors, (i, j) => jac(W[i]!, W[j]!)) === q.gold) combined++;
  }
  const n = qs.length;
  const pct = (x: number) => `${((100 * x) / n).toFixed(1)}%`;
  console.log(`| ${task} | ${n} | ${pct(chance)} | ${pct(longest)} | ${pct(simW)} | ${pct(simG)} | ${pct(topic)} | ${((100 * copied) / options).toFixed(1)}% | ${((100 * untool) / options).toFixed(1)}% | ${pct(combined)} | ${((100 * (combined - chance)) / n).toFixed(1)} |`);
}
