import { describe, expect, it } from 'vitest';
import { commandRegistry } from '../../generator/cli/registry.js';
import { COMMAND_EXAMPLES } from '../../generator/cli/examples.js';
import { printFindings } from '../../generator/cli/print-findings.js';
import type { Finding } from '../../generator/core/kernel/findings.js';
import { cli } from '../helpers/cli.js';

describe('--help', () => {
  it('every command has examples, and its help shows them and marks required options', async () => {
    for (const entry of commandRegistry) {
      expect(Object.keys(COMMAND_EXAMPLES), `examples for ${entry.name}`).toContain(entry.name);
      const res = await cli(entry.name, '--help');
      expect(res.code).toBe(0);
      expect(res.stdout, entry.name).toContain('Examples:\n  aptpace');
    }
    const plan = await cli('plan', '--help');
    expect(plan.stdout).toMatch(/--reference <file>[\s\S]*?\(required\)/);
  });

  it('a usage error points to --help instead of dumping it', async () => {
    const res = await cli('plan');
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('(run with --help for usage and examples)');
    expect(res.stderr.split('\n').length).toBeLessThan(5);
  });
});

describe('findings printout', () => {
  const many: Finding[] = Array.from({ length: 25 }, (_, i) => ({ code: 'question-invalid-json', severity: 'error', path: { file: 'q.jsonl', line: i + 1 }, args: { reason: 'x' } }));
  many.push({ code: 'question-unterminated-line', severity: 'warning', path: { file: 'q.jsonl', line: 26 }, args: {} });
  it('prints at most 10 of a code then a count, everything with --verbose, only errors with --quiet, colour only when asked', () => {
    const lines: string[] = [];
    printFindings(many, (l) => lines.push(l), { verbosity: 1, color: false });
    expect(lines.filter((l) => l.startsWith('error[question-invalid-json] q.jsonl'))).toHaveLength(10);
    expect(lines).toContain('error[question-invalid-json]: … and 15 more like this (--verbose, --json or --findings-file lists them)');
    const all: string[] = [];
    printFindings(many, (l) => all.push(l), { verbosity: 2, color: false });
    expect(all).toHaveLength(26);
    const quiet: string[] = [];
    printFindings(many, (l) => quiet.push(l), { verbosity: 0, color: false, perCode: 100 });
    expect(quiet.every((l) => l.startsWith('error'))).toBe(true);
    const colored: string[] = [];
    printFindings(many.slice(0, 1), (l) => colored.push(l), { verbosity: 1, color: true });
    expect(colored[0]).toMatch(/^\u001b\[31merror/);
    expect(all.join('')).not.toContain('\u001b[');
  });
});
