import { countSkip } from '../../kernel/findings.js';
import { isMissingCell, parseScore } from '../csv.js';
import type { TableFile, TableContext, TableFormatSpec } from './types.js';

/**
 * A wide table: one row per model and one column per instance (or, with
 * `orientation: 'models-columns'`, the transpose). Column headers are `<task>/<id>`
 * split at the last `/`, or plain ids of `options.task` (default: the file stem).
 * Blank / `NA` / `N/A` / `-` cells are unobserved, not zero.
 */
export const wideFormat: TableFormatSpec = {
  title: 'Wide CSV/TSV',
  layout: 'first column = model names (or instance ids with models-columns); other headers = <task>/<id>',
  detect(header) {
    return header.length >= 2;
  },
  read(table: TableFile, ctx: TableContext) {
    const { file } = table;
    const header = table.header.fields.map((h) => h.trim());
    const modelsInRows = (ctx.options.orientation ?? 'models-rows') === 'models-rows';
    const metric = ctx.options.metric ?? 'score';
    const defaultTask = ctx.options.task ?? table.stem;

    const instanceOf = (label: string): { task: string; id: string } => {
      if (ctx.options.task) return { task: ctx.options.task, id: label };
      const cut = label.lastIndexOf('/');
      return cut > 0 && cut < label.length - 1 ? { task: label.slice(0, cut), id: label.slice(cut + 1) } : { task: defaultTask, id: label };
    };

    // Per (model, task): block arrays.
    const blocks = new Map<string, { model: string; task: string; index: number[]; values: number[]; lines: number[] }>();
    const put = (model: string, inst: { task: string; id: string }, value: number, line: number) => {
      const key = `${model}\u0000${inst.task}`;
      let b = blocks.get(key);
      if (!b) blocks.set(key, (b = { model, task: inst.task, index: [], values: [], lines: [] }));
      b.index.push(ctx.builder.instance(inst.task, inst.id));
      b.values.push(value);
      b.lines.push(line);
    };

    const columnKeys = header.slice(1);
    const seenColumn = new Map<string, number>();
    columnKeys.forEach((label, c) => {
      if (label === '') ctx.sink.add('table-empty-id', { file, line: table.header.line, field: `column ${c + 2}` });
      else if (seenColumn.has(label)) {
        ctx.sink.add('table-duplicate-id', { file, line: table.header.line, field: label }, {
          id: label,
          firstLine: table.header.line,
          kept: `column ${seenColumn.get(label)! + 2}`,
          value: `column ${c + 2}`,
          policy: 'first',
        });
      } else seenColumn.set(label, c);
    });
    const seenRow = new Set<string>();
    for (const row of table.rows) {
      const where = { file, line: row.line };
      if (row.fields.length !== header.length) {
        ctx.tally.read += Math.max(0, header.length - 1);
        ctx.tally.rejected += Math.max(0, header.length - 1);
        ctx.sink.add('table-bad-row', where, { expected: header.length, found: row.fields.length });
        continue;
      }
      const rowKey = row.fields[0]!.trim();
      if (rowKey === '' || seenRow.has(rowKey)) {
        ctx.tally.read += header.length - 1;
        ctx.tally.rejected += header.length - 1;
        if (rowKey === '') ctx.sink.add('table-empty-id', { ...where, field: header[0] });
        else ctx.sink.add('table-duplicate-id', { ...where, field: header[0] }, { id: rowKey, firstLine: '?', kept: 'the first row', value: 'this row', policy: 'first' });
        continue;
      }
      seenRow.add(rowKey);
      columnKeys.forEach((label, c) => {
        if (label === '' || seenColumn.get(label) !== c) return;
        ctx.tally.read++;
        const raw = row.fields[c + 1]!;
        if (isMissingCell(raw)) {
          countSkip(ctx.tally, 'missing-cell');
          return;
        }
        const value = parseScore(raw);
        if (value === undefined) {
          ctx.sink.add('table-bad-score', { ...where, field: label }, { value: raw });
          ctx.tally.rejected++;
          return;
        }
        if (value < 0 || value > 1) {
          ctx.sink.add('table-out-of-range', { ...where, field: label }, { value: raw.trim() });
          ctx.tally.rejected++;
          return;
        }
        ctx.tally.accepted++;
        if (modelsInRows) put(ctx.modelName(rowKey), instanceOf(label), value, row.line);
        else put(ctx.modelName(label), instanceOf(rowKey), value, row.line);
      });
    }
    for (const b of [...blocks.values()]) {
      ctx.builder.setMetric(b.task, metric, { file });
      ctx.builder.addBlock({ model: b.model, task: b.task, index: Int32Array.from(b.index), values: Float64Array.from(b.values), lines: Int32Array.from(b.lines), file });
    }
  },
};
