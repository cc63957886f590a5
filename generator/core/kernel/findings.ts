import { exceedsDepth } from './json.js';

/**
 * Findings are typed data, rendered to prose in exactly one place (render.ts).
 * Tests assert on `code`, never on the rendered text.
 */
export type Severity = 'error' | 'warning' | 'info';

export interface FindingPath {
  /** File the finding is about, as the user named it (relative paths stay relative). */
  file?: string;
  /** 1-based line (JSONL) or record number. */
  line?: number;
  /** Record index inside a file holding several records (0-based). */
  record?: number;
  /** Dotted / JSON-pointer-ish field path, e.g. `steps[3].action.args`. */
  field?: string;
}

export interface Finding {
  code: string;
  severity: Severity;
  path: FindingPath;
  /** Structured values the message template interpolates; also machine output. */
  args: Record<string, unknown>;
}

export interface FindingKind {
  severity: Severity;
  title: string;
  /** Renders args into one sentence. Only render.ts calls this. */
  message: (args: Record<string, any>) => string;
}

/** A domain's catalogue of codes. Domains register theirs in catalog.ts. */
export type FindingCatalog<Code extends string = string> = Record<Code, FindingKind>;

export function finding(
  catalog: FindingCatalog,
  code: string,
  path: FindingPath,
  args: Record<string, unknown> = {},
): Finding {
  const kind = catalog[code];
  if (!kind) throw new Error(`internal: unknown finding code ${code}`);
  return { code, severity: kind.severity, path, args: boundedArgs(args) };
}

/** Deepest nesting an argument keeps; a deeper value (a 5,000-deep `acc`) would overflow every renderer. */
export const MAX_ARG_DEPTH = 32;

/**
 * A finding quotes the value it is about; a value nested past MAX_ARG_DEPTH is replaced by a
 * note saying so, so rendering, `--json` and `--findings-file` never recurse without bound.
 */
function boundedArgs(args: Record<string, unknown>): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  for (const key in args) {
    const v = args[key];
    if (typeof v !== 'object' || v === null || !exceedsDepth(v, MAX_ARG_DEPTH)) continue;
    out ??= { ...args };
    out[key] = `(a value nested more than ${MAX_ARG_DEPTH} levels deep)`;
  }
  return out ?? args;
}

/** Builds a typed `make(code, path, args)` bound to one catalogue. */
export function findingFactory<Code extends string>(catalog: FindingCatalog<Code>) {
  return (code: Code, path: FindingPath, args: Record<string, unknown> = {}): Finding =>
    finding(catalog as FindingCatalog, code, path, args);
}

export function hasErrors(findings: readonly Finding[]): boolean {
  return findings.some((f) => f.severity === 'error');
}

/** Read / accepted / rejected tallies every reader reports. */
export interface Tally {
  read: number;
  accepted: number;
  rejected: number;
  skipped?: Record<string, number>;
}

export function emptyTally(): Tally {
  return { read: 0, accepted: 0, rejected: 0 };
}

export function countSkip(tally: Tally, reason: string): void {
  tally.skipped ??= {};
  tally.skipped[reason] = (tally.skipped[reason] ?? 0) + 1;
}
