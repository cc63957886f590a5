import { readFileSync } from 'node:fs';
import { buildQuestions } from './generator/core/questions/build.js';
const ts = readFileSync(process.argv[2], 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
const kinds = ['env_setup_error_mcq', 'issue_fix_tool_call_tc', 'dr_citation_ms'] as any;
const r = await buildQuestions(ts, { seed: '0', kinds, includeUnproven: true });
const by: Record<string, number> = {};
for (const q of r.questions) by[q.kind] = (by[q.kind] ?? 0) + 1;
console.log(JSON.stringify({ by, skipped: r.skipped, findings: r.findings.map((f) => f.code + ' ' + JSON.stringify(f.args)).slice(0, 10) }, null, 1));
const buckets: Record<string, Record<string, number>> = {};
for (const q of r.questions) { buckets[q.kind] ??= {}; buckets[q.kind]![q.length_bucket] = (buckets[q.kind]![q.length_bucket] ?? 0) + 1; }
console.log(JSON.stringify(buckets));
const lang: Record<string, number> = {};
for (const q of r.questions) lang[q.kind + ':' + q.language] = (lang[q.kind + ':' + q.language] ?? 0) + 1;
console.log(JSON.stringify(lang));
if (process.argv[3]) for (const q of r.questions.filter((q) => q.kind === process.argv[3]).slice(0, Number(process.argv[4] ?? 1))) console.log(q.prompt.slice(q.question_start ?? 0).slice(-3000), '\n', JSON.stringify({ ...q, prompt: undefined }, null, 1));
