import { finding, type Finding } from './findings.js';
import { fsFindings } from './fs-findings.js';

/** Receives findings as they come; may return a promise to make the producer wait (a disk that is behind). */
export type FindingListener = (f: Finding) => Promise<void> | void;

/** The one code a collector folds the findings it does not hold into. */
export const FOLDED_CODE = 'findings-folded';

export interface FindingCollectorOptions {
  /** Findings of one code held (of one code in one file, with `perFile`); 1000 unless set. */
  keepPerCode?: number;
  /** Other bounds for some codes (repeats that carry no new information, such as duplicated rows). */
  caps?: Readonly<Record<string, number>>;
  /** Bound each file's findings of a code on their own, so one bad file does not hide another's. */
  perFile?: boolean;
  /** Codes always held (the few a tally is computed from). */
  keepAll?: ReadonlySet<string>;
  /** Every finding, as it comes: the CLI writes it to `--findings-file` here. */
  onFinding?: FindingListener;
  /**
   * Only the findings that are not held, as they come. For a reader of one file whose held
   * findings are handed on later, in a fixed order, to a collector that passes them on itself:
   * each finding then reaches the findings file exactly once.
   */
  onOverflow?: FindingListener;
}

/**
 * Bounded memory for a stream of findings, shared by every reader that can meet bad records
 * in bulk: each finding goes to `onFinding` as it comes, is counted, and only the first
 * `keepPerCode` of each code (per file with `perFile`) are held. `findings()` returns those
 * plus one `findings-folded` per code (and file) that went over, so a million bad records
 * cost a few thousand findings in memory, not gigabytes, while the findings file gets them all.
 */
export class FindingCollector {
  private readonly kept: Finding[] = [];
  private readonly counts = new Map<string, { file?: string; code: string; n: number }>();

  constructor(private readonly options: FindingCollectorOptions = {}) {}

  /**
   * Counts, holds or passes on one finding. Await the result where the caller can: the
   * listener may be waiting for the disk. A `findings-folded` from another collector adds its
   * count to this one's, so a reader's folds survive being handed on.
   */
  add(f: Finding): Promise<void> | void {
    if (f.code === FOLDED_CODE && typeof f.args.code === 'string') {
      this.entry(f.path.file, f.args.code).n += Number(f.args.count) || 0;
      return;
    }
    const e = this.entry(f.path.file, f.code);
    e.n++;
    const held = e.n <= this.capFor(f.code) || this.options.keepAll?.has(f.code) === true;
    if (held) this.kept.push(f);
    const sent = this.options.onFinding?.(f);
    const overflow = held ? undefined : this.options.onOverflow?.(f);
    if (sent && overflow) return Promise.all([sent, overflow]).then(() => undefined);
    return sent ?? overflow;
  }

  /** How many findings came in, held or not. */
  get total(): number {
    let n = 0;
    for (const e of this.counts.values()) n += e.n;
    return n;
  }

  /** The findings held so far, in arrival order (no folds). */
  get held(): readonly Finding[] {
    return this.kept;
  }

  /** The held findings in arrival order, then one `findings-folded` per code (and file) over the bound, in key order. */
  findings(): Finding[] {
    const folds: Finding[] = [];
    for (const [, e] of [...this.counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const keep = this.capFor(e.code);
      if (e.n <= keep || this.options.keepAll?.has(e.code)) continue;
      folds.push(finding(fsFindings, FOLDED_CODE, e.file !== undefined ? { file: e.file } : {}, { code: e.code, count: e.n - keep, kept: keep }));
    }
    return [...this.kept, ...folds];
  }

  private capFor(code: string): number {
    return this.options.caps?.[code] ?? this.options.keepPerCode ?? 1000;
  }

  private entry(file: string | undefined, code: string) {
    const perFile = this.options.perFile === true;
    const key = perFile ? `${file ?? ''}\u0000${code}` : code;
    let e = this.counts.get(key);
    if (!e) this.counts.set(key, (e = { file: perFile && file ? file : undefined, code, n: 0 }));
    return e;
  }
}
