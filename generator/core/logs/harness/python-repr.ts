/**
 * Reads back what lm-eval 0.4.13 writes for a list-valued target. Its sample writer stores
 * `str(target)` (loggers/evaluation_tracker.py), so a task whose `doc_to_target` returns a list
 * of strings logs the Python repr of that list, e.g. `['edit 2:2', "it's"]`. The harness scores
 * such a task against every element (any match counts), so re-scoring a record needs the list.
 *
 * Only the shape `str(list_of_str)` produces is accepted: `[` items `, ` … `]`, each item a
 * Python string literal as `repr` writes it (single quotes unless the text holds `'` and no `"`;
 * escapes `\\ \' \" \n \r \t \xNN \uNNNN \UNNNNNNNN`). Anything else is not a list repr.
 */

const SIMPLE_ESCAPES: Record<string, string> = { '\\': '\\', "'": "'", '"': '"', n: '\n', r: '\r', t: '\t' };
const HEX_ESCAPES: Record<string, number> = { x: 2, u: 4, U: 8 };

/** One string literal starting at `at` (a quote); the decoded text and where it ends, or null. */
function readLiteral(text: string, at: number): { value: string; end: number } | null {
  const quote = text[at];
  if (quote !== "'" && quote !== '"') return null;
  let out = '';
  let i = at + 1;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === quote) return { value: out, end: i + 1 };
    if (ch !== '\\') {
      out += ch;
      i++;
      continue;
    }
    const esc = text[i + 1];
    if (esc === undefined) return null;
    const simple = SIMPLE_ESCAPES[esc];
    if (simple !== undefined) {
      out += simple;
      i += 2;
      continue;
    }
    const width = HEX_ESCAPES[esc];
    if (width === undefined) return null;
    const hex = text.slice(i + 2, i + 2 + width);
    if (hex.length !== width || !/^[0-9a-fA-F]+$/.test(hex)) return null;
    const code = parseInt(hex, 16);
    if (code > 0x10ffff) return null;
    out += String.fromCodePoint(code);
    i += 2 + width;
  }
  return null;
}

/** The strings of a Python `str(list_of_str)` repr, or null when the text is not one. */
export function parsePythonStringList(text: string): string[] | null {
  if (text.length < 2 || text[0] !== '[' || text[text.length - 1] !== ']') return null;
  const items: string[] = [];
  let i = 1;
  if (text[i] === ']') return i === text.length - 1 ? items : null;
  for (;;) {
    const lit = readLiteral(text, i);
    if (!lit) return null;
    items.push(lit.value);
    i = lit.end;
    if (text[i] === ']') return i === text.length - 1 ? items : null;
    if (text[i] !== ',' || text[i + 1] !== ' ') return null;
    i += 2;
  }
}
