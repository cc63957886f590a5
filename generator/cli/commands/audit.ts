import type { Command } from 'commander';
import { UsageError, type CommandSpec } from '../command.js';
import { formatTable } from '../table.js';
import { finding } from '../../core/kernel/findings.js';
import { kernelFindings } from '../../core/catalog.js';
import { fsFindings } from '../../core/kernel/fs-findings.js';
import { renderTally } from '../../core/kernel/render.js';
import { readQuestions } from '../../core/questions/read-questions.js';
import { auditQuestions, DEFAULT_MAX_SHORTCUT_GAIN, type AuditReport, type TaskAudit } from '../../core/questions/audit/index.js';
import { expandQuestionInputs } from '../question-inputs.js';

const audit: CommandSpec = {
  name: 'audit',
  summary: 'Audit built questions per task: shortcut rules vs chance (combined rule gated), copied and off-tool options, near-duplicates, letter balance, leaks',
  configure(cmd: Command) {
    cmd
      .argument('<questions...>', 'question JSONL files (or glob patterns)')
      .option('--max-shortcut-gain <points>', 'points above chance a shortcut rule may reach before a significant result fails', String(DEFAULT_MAX_SHORTCUT_GAIN))
      .option('--tolerance <points>', 'allowed deviation of gold-letter shares from expectation, in percentage points', '5')
      .option('--alpha <p>', 'significance a deviation must reach to fail the audit', '0.05')
      .option('--aptbench', "inputs are APTBench's released MCQ rows (issue_fix/locate, env_setup/error, deepresearch/plan_*), not aptpace questions")
      .option('--table', 'print one Markdown table of the shortcut rules per task instead of the detailed report')
      .option('--strict', 'warnings (deviations that are not yet significant) fail too');
  },
  async run(args, opts, ctx) {
    const tolerancePoints = nonNegative(opts.tolerance, '--tolerance');
    const maxShortcutGain = nonNegative(opts.maxShortcutGain, '--max-shortcut-gain');
    const alpha = Number(opts.alpha);
    if (!(alpha > 0 && alpha < 1)) throw new UsageError(`--alpha must be between 0 and 1, got ${opts.alpha}`);

    const files = await expandInputs(ctx.vfs, args, ctx.cwd);
    if (files.length === 0) return { findings: [finding(kernelFindings, 'no-inputs', {}, { patterns: args.join(' ') })] };
    ctx.progress(`reading ${files.length} question file(s)`);
    const read = opts.aptbench
      ? await (await import('../../core/questions/audit/aptbench-rows.js')).readAptbenchRows(ctx.vfs, files, { onFinding: ctx.streamFinding })
      : await readQuestions(ctx.vfs, files, { onFinding: ctx.streamFinding });
    if (read.questions.length === 0) {
      // An empty set has no shortcuts to find: that is not a PASS.
      const empty = finding(fsFindings, 'input-empty', { file: files.join(', ') }, { path: files.join(', '), what: 'questions', verb: 'audit' });
      return { findings: [...read.findings, empty], data: { tally: read.tally, report: null }, text: `nothing audited: no questions read\n${renderTally('questions', read.tally)}` };
    }
    const { findings, report } = auditQuestions(read.questions, { tolerancePoints, maxShortcutGain, alpha });
    return {
      findings: [...read.findings, ...findings],
      data: { tally: read.tally, report },
      text: `${opts.table ? renderTable(report) : renderReport(report)}\n${renderTally('questions', read.tally)}`,
      strict: Boolean(opts.strict),
    };
  },
};
export default audit;

function nonNegative(value: unknown, flag: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new UsageError(`${flag} must be a non-negative number of points, got ${value}`);
  return n;
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const formatP = (p: number) => (p < 0.001 ? p.toExponential(1) : p.toPrecision(2));
const signed = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(1)}`;

function derivation(t: TaskAudit): string {
  const n = t.segmentSources.field + t.segmentSources['after-shots'] + t.segmentSources['whole-prompt'];
  const segment = t.segmentSources.field === n ? 'recorded' : `derived ${n - t.segmentSources.field}/${n} (after shots ${t.segmentSources['after-shots']}, whole prompt ${t.segmentSources['whole-prompt']})`;
  const tools = t.toolsSources.field === n ? 'recorded' : `recorded ${t.toolsSources.field}, derived from a Tool set list ${t.toolsSources['tool-list']}, unknown ${t.toolsSources.none}`;
  return `  question segment ${segment}; offered tools ${tools}`;
}

function renderTask(t: TaskAudit): string {
  const kinds = Object.entries(t.choiceCounts).map(([k, n]) => `K=${k}×${n}`).join(', ');
  const lines = [
    `${t.task}: ${t.questions} questions (${t.mcq} MCQ, ${t.completion} completion${t.fewshot ? `, ${t.fewshot} in the few-shot split` : ''}; scored MCQs ${kinds || 'none'})  ${t.verdict.toUpperCase()}`,
  ];
  if (t.letters && t.chance !== null) {
    const hist = Object.entries(t.letters.histogram).map(([l, c]) => `${l}=${c}`).join(' ');
    lines.push(derivation(t));
    lines.push(
      `  gold letters  ${hist}   max deviation ${signed(t.letters.maxDeviationPoints)} points at ${t.letters.maxDeviationLetter} (chi2 ${t.letters.chiSquare.toFixed(2)}, df ${t.letters.df}, p=${formatP(t.letters.pValue)})  ${t.letters.verdict}`,
    );
    lines.push(
      `  chance ${pct(t.chance)}; ${t.detectablePoints === null ? 'too few questions for any shortcut to be significant' : `at this size the combined rule is significant from ${signed(t.detectablePoints)} points`}`,
    );
    const shortcutRows = t.shortcuts.map((s) => [s.name, pct(s.accuracy), `${pct(s.interval[0])}–${pct(s.interval[1])}`, signed(s.excessPoints), formatP(s.pValue), `${s.verdict}${s.sides === 'above' ? ' (gains only)' : ''}`]);
    lines.push(...formatTable([['shortcut', 'accuracy', '95% CI', 'vs chance', 'p', 'verdict'], ...shortcutRows], { indent: '  ' }));
    if (t.adversary) lines.push(...renderAdversary(t));
    lines.push(
      `  copied distractors ${t.defects.copiedOptions}, undeclared off-tool distractors ${t.defects.undeclaredInvalidTools}, declared invalid-tool distractors ${t.defects.declaredInvalidTools}, golds calling a tool not offered ${t.defects.goldToolNotOffered}`,
    );
  }
  if (t.completionRules) {
    const c = t.completionRules;
    const rules = Object.entries(c.rules).map(([name, share]) => `${name} ${pct(share)}`).join(', ');
    lines.push(`  completion (${c.metric}) on ${c.questions} scored questions: a target stands in the question (any length) in ${pct(c.copyable)}; string rules by exact match: ${rules || 'none (no exact-match metric)'}`);
  }
  if (t.multiSelect) {
    const rules = Object.entries(t.multiSelect.rules).map(([name, r]) => `${name} ${pct(r.setMatch)} (F1 ${pct(r.f1)})`).join(', ');
    lines.push(`  multi-select rules, set match on ${t.multiSelect.questions} scored questions (chance ${pct(t.multiSelect.chanceSetMatch)}): ${rules}`);
    for (const l of t.multiSelectLanguages) {
      const byRule = Object.entries(l.rules).map(([name, r]) => `${name} ${pct(r.setMatch)}`).join(', ');
      lines.push(`    ${l.language}, ${l.questions} questions (chance ${pct(l.chanceSetMatch)}): ${byRule}`);
    }
  }
  lines.push(
    `  duplicates ${t.duplicates}, same prompt ${t.duplicatePrompts}, near-duplicate groups ${t.nearDuplicates.groups} (${t.nearDuplicates.extra} extra questions; ${t.nearDuplicates.distinct} distinct (prefix, gold) pairs), gold leaked ${t.leaks}, gold in context with a distractor ${t.goldInContext}, targets in prompt ${t.targetsInPrompt} (short ones as whole tokens ${t.shortTargetsInPrompt}), identical options ${t.identicalChoices}, malformed ${t.invalid}`,
  );
  return lines.join('\n');
}

function renderAdversary(t: TaskAudit): string[] {
  const a = t.adversary!;
  const learners = a.cells[0]?.learners.map((l) => l.name) ?? [];
  const rows = a.cells.map((c) => [
    c.language,
    String(c.n),
    ...c.learners.map((l) => pct(l.accuracy)),
    c.learner,
    pct(c.accuracy),
    `${pct(c.interval[0])}–${pct(c.interval[1])}`,
    pct(c.chance),
    signed(c.excessPoints),
    c.verdict,
  ]);
  return [
    `  learned adversary (options only; learners ${learners.join(', ')}, each cross-fitted over ${a.folds} folds of ${a.groups} source groups, ${a.repeats} dealings averaged; the strongest is judged, its interval widened for ${learners.length} tries)`,
    ...formatTable([['language', 'n', ...learners, 'strongest', 'accuracy', '95% CI', 'chance', 'vs chance', 'verdict'], ...rows], { indent: '  ' }),
  ];
}

/** `accuracy (points above chance) [n]` of the adversary in one cell, or `—` when the cell is empty. */
function adversaryCell(t: TaskAudit, language: string): string {
  const c = t.adversary?.cells.find((x) => x.language === language);
  return c ? `${pct(c.accuracy)} (${signed(c.excessPoints)}) n=${c.n}` : '—';
}

export function renderReport(report: AuditReport): string {
  const head = `audit of ${report.questions} questions in ${report.tasks.length} task(s): max shortcut gain ${report.maxShortcutGain} points, letter tolerance ±${report.tolerancePoints} points, alpha ${report.alpha}: ${report.verdict.toUpperCase()}`;
  const note = report.tasks.some((t) => t.shortcuts.some((s) => s.sides === 'above'))
    ? '\n\n(gains only): leave-one-out pushes letter_prior below chance on balanced sets, and the combined rule is the gate for gains, so only scores above chance count against them.'
    : '';
  return `${[head, ...report.tasks.map(renderTask)].join('\n\n')}${note}`;
}

/**
 * The per-task shortcut table of docs/questions.md: accuracy and points above chance of each
 * rule on the scored MCQs, the combined rule's interval and p-value, and which inputs were derived.
 */
export function renderTable(report: AuditReport): string {
  const tasks = report.tasks.filter((t) => t.chance !== null && t.shortcuts.length > 0);
  const names = tasks[0]?.shortcuts.map((s) => s.name) ?? [];
  const header = ['task', 'n', 'chance', ...names, 'combined 95% CI', 'combined p', 'adversary en', 'adversary zh', 'copied · off-tool distractors', 'near-dup groups', 'segment / tools derived', 'verdict'];
  const rows = tasks.map((t) => {
    const combined = t.shortcuts.find((s) => s.name === 'combined');
    const n = t.shortcuts[0]!.n;
    return [
      t.task,
      String(n),
      pct(t.chance!),
      ...t.shortcuts.map((s) => `${pct(s.accuracy)} (${signed(s.excessPoints)})`),
      combined ? `${pct(combined.interval[0])}–${pct(combined.interval[1])}` : '',
      combined ? formatP(combined.pValue) : '',
      adversaryCell(t, 'en'),
      adversaryCell(t, 'zh'),
      `${t.defects.copiedOptions} · ${t.defects.undeclaredInvalidTools}`,
      String(t.nearDuplicates.groups),
      `${n - t.segmentSources.field}/${n} · ${n - t.toolsSources.field - t.toolsSources.none}/${n}`,
      t.verdict,
    ];
  });
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/** The question inputs of audit and review (shared with emit). */
export const expandInputs = expandQuestionInputs;
