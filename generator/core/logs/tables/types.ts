import type { Tally } from '../../kernel/findings.js';
import type { MatrixBuilder } from '../builder.js';
import type { CsvRow } from '../csv.js';
import type { ModelMapping } from '../mapping.js';
import type { FindingSink } from '../sink.js';
import type { FindingListener } from '../../kernel/finding-collector.js';

export type TableFormat = 'pace-csv' | 'wide';

export interface ScoreTableOptions {
  mapping?: ModelMapping;
  /** Every finding as it comes (the CLI's --findings-file); only a bounded number are returned. */
  onFinding?: FindingListener;
  /** Force a format instead of sniffing the header. */
  format?: TableFormat;
  /**
   * An id repeated in one file with a different score. `error` (default): keep the first
   * row and reject the repeat (exit 1). `first` / `last`: the user's explicit choice; the
   * other row is skipped with a warning. PACE's own loader keeps the first
   * (`drop_duplicates(subset="id")`).
   */
  duplicates?: 'error' | 'first' | 'last';
  /** Wide tables: which axis holds the models (default rows). */
  orientation?: 'models-rows' | 'models-columns';
  /** Wide tables: task for every column (otherwise `<task>/<id>` headers split at the last `/`, or the file stem). */
  task?: string;
  /** Metric name recorded for wide tables (default `score`). */
  metric?: string;
}

export interface TableFile {
  file: string;
  /** Task from the folder layout: `<benchmark>[/<subdir>]` relative to the input root. */
  task: string;
  /** File stem, before the mapping. */
  stem: string;
  header: CsvRow;
  rows: CsvRow[];
}

export interface TableContext {
  builder: MatrixBuilder;
  sink: FindingSink;
  tally: Tally;
  options: ScoreTableOptions;
  /** Applies the mapping and remembers which aliases were used. */
  modelName: (raw: string) => string;
  /** Per task: every id seen, and per model the ids it scored (for the sparse-file report). */
  coverage: Map<string, { ids: Set<string>; perModel: Map<string, { count: number; file: string }> }>;
}

export interface TableFormatSpec {
  title: string;
  /** One line for `--help` and the docs. */
  layout: string;
  detect(header: string[]): boolean;
  read(table: TableFile, ctx: TableContext): void;
}
