import { countSkip } from '../../kernel/findings.js';
import { parseScore } from '../csv.js';
import type { TableFile, TableContext, TableFormatSpec } from './types.js';

/**
 * PACE's standardized per-model files: `<root>/<benchmark>/[<subdir>/]<Model>.csv` with
 * columns `id,score,metric_name`. One file = one (model, task) block.
 */
export const paceCsvFormat: TableFormatSpec = {
  title: 'PACE per-model CSV',
  layout: '<root>/<benchmark>/[<subdir>/]<Model>.csv with columns id,score[,metric_name]',
  detect(header) {
    const cols = header.map((h) => h.trim().toLowerCase());
    return cols.includes('id') && cols.includes('score') && cols.length <= 3;
  },
  read(table: TableFile, ctx: TableContext) {
    const { file, task } = table;
    const cols = table.header.fields.map((h) => h.trim().toLowerCase());
    const missing = ['id', 'score'].filter((c) => !cols.includes(c));
    if (missing.length) {
      ctx.sink.add('table-bad-header', { file, line: table.header.line }, { found: table.header.fields, missing });
      ctx.tally.rejected += table.rows.length;
      ctx.tally.read += table.rows.length;
      return;
    }
    const idCol = cols.indexOf('id');
    const scoreCol = cols.indexOf('score');
    const metricCol = cols.indexOf('metric_name');
    const model = ctx.modelName(table.stem);
    const keepLast = ctx.options.duplicates === 'last';

    // id → position in the block arrays
    const seen = new Map<string, number>();
    const index: number[] = [];
    const values: number[] = [];
    const lines: number[] = [];
    let sameDuplicates = 0;
    let metric: string | undefined;
    for (const row of table.rows) {
      ctx.tally.read++;
      const where = { file, line: row.line };
      if (row.fields.length !== cols.length) {
        ctx.sink.add('table-bad-row', where, { expected: cols.length, found: row.fields.length });
        ctx.tally.rejected++;
        continue;
      }
      const id = row.fields[idCol]!.trim();
      if (id === '') {
        ctx.sink.add('table-empty-id', { ...where, field: 'id' });
        ctx.tally.rejected++;
        continue;
      }
      const raw = row.fields[scoreCol]!;
      const value = parseScore(raw);
      if (value === undefined) {
        ctx.sink.add('table-bad-score', { ...where, field: 'score' }, { value: raw });
        ctx.tally.rejected++;
        continue;
      }
      if (value < 0 || value > 1) {
        ctx.sink.add('table-out-of-range', { ...where, field: 'score' }, { value: raw.trim() });
        ctx.tally.rejected++;
        continue;
      }
      if (metricCol >= 0) {
        const m = row.fields[metricCol]!.trim();
        if (metric === undefined) metric = m;
        else if (m !== metric) ctx.sink.add('table-metric-mixed', { ...where, field: 'metric_name' }, { found: m, expected: metric, task });
      }
      const prior = seen.get(id);
      if (prior !== undefined) {
        if (values[prior] === value) {
          sameDuplicates++;
          countSkip(ctx.tally, 'duplicate-same');
          continue;
        }
        const policy = ctx.options.duplicates ?? 'error';
        ctx.sink.add(policy === 'error' ? 'table-duplicate-id' : 'table-duplicate-resolved', { ...where, field: 'id' }, {
          id,
          firstLine: lines[prior],
          kept: keepLast ? value : values[prior],
          value: keepLast ? values[prior] : value,
          policy: policy === 'error' ? 'first' : policy,
        });
        if (policy === 'error') ctx.tally.rejected++;
        else countSkip(ctx.tally, 'duplicate-overridden');
        if (keepLast) {
          values[prior] = value;
          lines[prior] = row.line;
        }
        continue;
      }
      seen.set(id, values.length);
      index.push(ctx.builder.instance(task, id));
      values.push(value);
      lines.push(row.line);
      ctx.tally.accepted++;
    }
    if (sameDuplicates) ctx.sink.add('table-duplicate-same', { file }, { count: sameDuplicates });
    if (values.length > 1 && values.every((v) => v === values[0])) {
      ctx.sink.add('table-constant-file', { file }, { rows: values.length, value: values[0] });
    }
    ctx.builder.setMetric(task, metric || 'score', { file });
    ctx.builder.addBlock({
      model,
      task,
      index: Int32Array.from(index),
      values: Float64Array.from(values),
      lines: Int32Array.from(lines),
      file,
    });
    let cov = ctx.coverage.get(task);
    if (!cov) ctx.coverage.set(task, (cov = { ids: new Set(), perModel: new Map() }));
    for (const id of seen.keys()) cov.ids.add(id);
    const prev = cov.perModel.get(model);
    cov.perModel.set(model, { count: (prev?.count ?? 0) + seen.size, file });
  },
};
