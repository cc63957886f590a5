/**
 * Column-aligned text tables for human output. Widths are display widths (a CJK or other
 * full-width character takes two terminal cells, a combining mark none), so a table whose
 * cells hold long paths or Chinese text still lines up.
 */

const WIDE: ReadonlyArray<readonly [number, number]> = [
  [0x1100, 0x115f], [0x2e80, 0x303e], [0x3041, 0x33ff], [0x3400, 0x4dbf], [0x4e00, 0x9fff], [0xa000, 0xa4cf],
  [0xac00, 0xd7a3], [0xf900, 0xfaff], [0xfe30, 0xfe4f], [0xff00, 0xff60], [0xffe0, 0xffe6],
  [0x1f300, 0x1f64f], [0x1f900, 0x1f9ff], [0x20000, 0x3fffd],
];
const ZERO: ReadonlyArray<readonly [number, number]> = [[0x0300, 0x036f], [0x200b, 0x200f], [0xfe00, 0xfe0f]];

const inRanges = (cp: number, ranges: ReadonlyArray<readonly [number, number]>) => ranges.some(([lo, hi]) => cp >= lo && cp <= hi);

/** Terminal cells `text` takes (ANSI colour sequences take none). */
export function displayWidth(text: string): number {
  let width = 0;
  for (const ch of text.replace(/\x1b\[[0-9;]*m/g, '')) {
    const cp = ch.codePointAt(0)!;
    if (cp < 0x20 || inRanges(cp, ZERO)) continue;
    width += inRanges(cp, WIDE) ? 2 : 1;
  }
  return width;
}

export type Align = 'left' | 'right';

export function padDisplay(text: string, width: number, align: Align = 'left'): string {
  const fill = ' '.repeat(Math.max(0, width - displayWidth(text)));
  return align === 'right' ? fill + text : text + fill;
}

export interface TableOptions {
  /** Per column; left by default. */
  align?: readonly Align[];
  /** Spaces between columns (default 2). */
  gap?: number;
  /** Prefix of every line (e.g. two spaces of indentation). */
  indent?: string;
}

/** Rows (the first is usually the header) padded so every column starts at the same cell. */
export function formatTable(rows: readonly (readonly string[])[], options: TableOptions = {}): string[] {
  const columns = Math.max(0, ...rows.map((r) => r.length));
  const widths = Array.from({ length: columns }, (_, i) => Math.max(0, ...rows.map((r) => displayWidth(r[i] ?? ''))));
  const gap = ' '.repeat(options.gap ?? 2);
  return rows.map((r) => {
    const cells = widths.map((w, i) => padDisplay(r[i] ?? '', w, options.align?.[i] ?? 'left'));
    return `${options.indent ?? ''}${cells.join(gap)}`.trimEnd();
  });
}

/**
 * Pads the cells of every Markdown pipe table in `text` to common widths (still valid
 * Markdown, now readable in a terminal). Other lines are left as they are.
 */
export function alignMarkdownTables(text: string): string {
  const lines = text.split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length; ) {
    if (!lines[i]!.startsWith('|')) {
      out.push(lines[i++]!);
      continue;
    }
    const block: string[][] = [];
    while (i < lines.length && lines[i]!.startsWith('|')) block.push(splitRow(lines[i++]!));
    const isRule = (r: string[]) => r.every((c) => /^:?-+:?$/.test(c));
    const widths = Array.from({ length: Math.max(...block.map((r) => r.length)) }, (_, c) =>
      Math.max(3, ...block.filter((r) => !isRule(r)).map((r) => displayWidth(r[c] ?? ''))),
    );
    for (const r of block) out.push(`| ${widths.map((w, c) => (isRule(r) ? '-'.repeat(w) : padDisplay(r[c] ?? '', w))).join(' | ')} |`);
  }
  return out.join('\n');
}

function splitRow(line: string): string[] {
  const cells = line.trim().replace(/^\|/, '').replace(/\|$/, '').split(/(?<!\\)\|/);
  return cells.map((c) => c.trim());
}
