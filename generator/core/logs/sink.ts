import type { Finding, FindingPath } from '../kernel/findings.js';
import { FindingCollector, type FindingListener } from '../kernel/finding-collector.js';
import { logsFinding, type LogsFindingCode } from './findings.js';

/** Repeats of one code in one file held; a corrupted million-line log still yields a readable report. */
const PER_FILE_CAP = 20;
/** Codes that repeat by design in bulk data (a duplicated block) are held fewer times. */
const CAPS: Partial<Record<LogsFindingCode, number>> = { 'table-duplicate-id': 3, 'table-duplicate-resolved': 3 };

export interface FindingSinkOptions {
  /** Every finding as it comes (the CLI's --findings-file). */
  onFinding?: FindingListener;
  /** Only the findings not held (a per-file reader whose held findings are handed on in order; see FindingCollector). */
  onOverflow?: FindingListener;
}

/**
 * The log, table and target readers' findings: the kernel's FindingCollector, bounded per file
 * and code, with a synchronous `add` for readers that meet findings deep in synchronous code.
 * Nothing is lost: every finding goes to the listener, the fold is itself a finding carrying
 * the count, and tallies are kept by the callers.
 */
export class FindingSink {
  private readonly collector: FindingCollector;

  constructor(options: FindingSinkOptions = {}) {
    this.collector = new FindingCollector({ perFile: true, keepPerCode: PER_FILE_CAP, caps: CAPS, ...options });
  }

  /** The findings held so far (no folds). */
  get findings(): readonly Finding[] {
    return this.collector.held;
  }

  add(code: LogsFindingCode, path: FindingPath, args: Record<string, unknown> = {}): void {
    this.send(logsFinding(code, path, args));
  }

  push(...findings: Finding[]): void {
    this.pushAll(findings);
  }

  /** Passes findings on one by one (a million of them never pass through a spread); another sink's folds add to this one's. */
  pushAll(findings: Iterable<Finding>): void {
    for (const f of findings) this.send(f);
  }

  /** The held findings, then one `findings-folded` per (file, code) over the bound. Call once at the end. */
  close(): Finding[] {
    return this.collector.findings();
  }

  private send(f: Finding): void {
    // The listener's disk wait is not awaited here (callers are synchronous); a write failure
    // surfaces where the CLI finishes the findings file.
    const pending = this.collector.add(f);
    if (pending) pending.catch(() => undefined);
  }
}
