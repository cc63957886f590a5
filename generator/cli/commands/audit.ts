import type { Command } from 'commander';
import { UsageError, type CommandSpec } from '../command.js';
import { finding } from '../../core/kernel/findings.js';
import { kernelFindings } from '../../core/catalog.js';
import { fsFindings } from '../../core/kernel/fs-findings.js';
import { renderTally } from '../../core/kernel/render.js';
import { readQuestions } from '../../core/questions/read-questions.js';
import { auditQuestions, type AuditReport, type TaskAudit } from '../../core/questions/audit/index.js';
import type { Vfs } from '../../core/kernel/vfs.js';

const audit: CommandSpec = {
  name: 'audit',
  summary: 'Audit built questions per task: letter balance, duplicates, leaks, identical options, shortcut baselines vs chance',
  configure(cmd: Command) {
    cmd
      .argument('<questions...>', 'question JSONL files (or glob patterns)')
      .option('--tolerance <points>', 'allowed distance of a shortcut from chance, in percentage points', '5')
      .option('--alpha <p>', 'significance a deviation must reach to fail the audit', '0.05')
      .option('--strict', 'warnings (deviations that are not yet significant) fail too');
  },
  async run(args, opts, ctx) {
    const tolerancePoints = Number(opts.tolerance);
    if (!Number.isFinite(tolerancePoints) || tolerancePoints < 0) throw new UsageError(`--tolerance must be a non-negative number of points, got ${opts.tolerance}`);
    const alpha = Number(opts.alpha);
    if (!(alpha > 0 && alpha < 1)) throw new UsageError(`--alpha must be between 0 and 1, got ${opts.alpha}`);

    const files = await expandInputs(ctx.vfs, args, ctx.cwd);
    if (files.length === 0) return { findings: [finding(kernelFindings, 'no-inputs', {}, { patterns: args.join(' ') })] };
    ctx.progress(`reading ${files.length} question file(s)`);
    const read = await readQuestions(ctx.vfs, files);
    if (read.questions.length === 0) {
      // An empty set has no shortcuts to find: that is not a PASS.
      const empty = finding(fsFindings, 'input-empty', { file: files.join(', ') }, { path: files.join(', '), what: 'questions', verb: 'audit' });
      return { findings: [...read.findings, empty], data: { tally: read.tally, report: null }, text: `nothing audited: no questions read\n${renderTally('questions', read.tally)}` };
    }
    const { findings, report } = auditQuestions(read.questions, { tolerancePoints, alpha });
    return {
      findings: [...read.findings, ...findings],
      data: { tally: read.tally, report },
      text: `${renderReport(report)}\n${renderTally('questions', read.tally)}`,
      strict: Boolean(opts.strict),
    };
  },
};
export default audit;

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const formatP = (p: number) => (p < 0.001 ? p.toExponential(1) : p.toPrecision(2));
const signed = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(1)}`;

function renderTask(t: TaskAudit): string {
  const kinds = Object.entries(t.choiceCounts).map(([k, n]) => `K=${k}×${n}`).join(', ');
  const lines = [
    `${t.task}: ${t.questions} questions (${t.mcq} MCQ, ${t.completion} completion${t.fewshot ? `, ${t.fewshot} in the few-shot split` : ''}; scored MCQs ${kinds || 'none'})  ${t.verdict.toUpperCase()}`,
  ];
  if (t.letters && t.chance !== null) {
    const hist = Object.entries(t.letters.histogram).map(([l, c]) => `${l}=${c}`).join(' ');
    lines.push(
      `  gold letters  ${hist}   max deviation ${signed(t.letters.maxDeviationPoints)} points at ${t.letters.maxDeviationLetter} (chi2 ${t.letters.chiSquare.toFixed(2)}, df ${t.letters.df}, p=${formatP(t.letters.pValue)})  ${t.letters.verdict}`,
    );
    lines.push(
      `  chance ${pct(t.chance)}; ${t.detectablePoints === null ? 'too few questions for any shortcut to be significant' : `at this size a shortcut is significant from ${signed(t.detectablePoints)} points`}`,
    );
    lines.push(`  ${'shortcut'.padEnd(18)}${'accuracy'.padEnd(10)}${'95% CI'.padEnd(15)}${'vs chance'.padEnd(11)}${'p'.padEnd(9)}verdict`);
    for (const s of t.shortcuts) {
      lines.push(
        `  ${s.name.padEnd(18)}${pct(s.accuracy).padEnd(10)}${`${pct(s.interval[0])}–${pct(s.interval[1])}`.padEnd(15)}${signed(s.excessPoints).padEnd(11)}${formatP(s.pValue).padEnd(9)}${s.verdict}${s.sides === 'above' ? ' (gains only)' : ''}`,
      );
    }
  }
  lines.push(
    `  duplicates ${t.duplicates}, same prompt ${t.duplicatePrompts}, gold leaked ${t.leaks}, gold in context with a distractor ${t.goldInContext}, targets in prompt ${t.targetsInPrompt}, identical options ${t.identicalChoices}, malformed ${t.invalid}`,
  );
  return lines.join('\n');
}

export function renderReport(report: AuditReport): string {
  const head = `audit of ${report.questions} questions in ${report.tasks.length} task(s): tolerance ±${report.tolerancePoints} points, alpha ${report.alpha}: ${report.verdict.toUpperCase()}`;
  const note = report.tasks.some((t) => t.shortcuts.some((s) => s.sides === 'above'))
    ? '\n\n(gains only): leave-one-out pushes frequent_letter below chance on balanced sets, so only scores above chance count against it.'
    : '';
  return `${[head, ...report.tasks.map(renderTask)].join('\n\n')}${note}`;
}

/**
 * Question files named on the command line: plain paths are kept as typed (so a missing one
 * is reported by the reader), patterns with glob characters are expanded, sorted.
 */
export async function expandInputs(vfs: Vfs, patterns: string[], cwd: string): Promise<string[]> {
  const out: string[] = [];
  for (const p of patterns) {
    if (/[*?[\]{}]/.test(p)) out.push(...(await vfs.glob([p], { cwd, absolute: true })));
    else out.push(p);
  }
  return [...new Set(out)];
}
