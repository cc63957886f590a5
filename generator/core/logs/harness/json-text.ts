import { hash } from 'node:crypto';

/**
 * Raw-text JSON helpers for harness sample lines. The harness hashes a record's `doc`
 * as `sha256(json.dumps(doc, indent=2, ensure_ascii=False))`; re-serialising a parsed JS
 * object cannot reproduce that (JS reorders integer-like keys and prints `1.0` as `1`),
 * so the hash is recomputed from the doc's own text, re-indented token for token.
 * Everything here is iterative: a deeply nested doc cannot overflow the stack.
 */

/** Index just past the JSON string starting at `i` (text[i] === '"'), or -1 if unterminated. */
function skipString(text: string, i: number): number {
  // Jump quote to quote (native indexOf); a quote preceded by an odd run of backslashes is escaped.
  for (let j = i + 1; ; ) {
    const q = text.indexOf('"', j);
    if (q < 0) return -1;
    let k = q - 1;
    while (k > i && text.charCodeAt(k) === 0x5c) k--;
    if ((q - 1 - k) % 2 === 0) return q + 1;
    j = q + 1;
  }
}

export function skipWs(text: string, i: number): number {
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
    i++;
  }
  return i;
}

/** `,` `}` `]` or JSON whitespace: where a bare scalar ends. */
function isScalarEnd(c: number): boolean {
  return c === 0x2c || c === 0x7d || c === 0x5d || c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** Index just past the JSON value starting at `i`, or -1 when it is unbalanced or cut off. */
export function skipValue(text: string, i: number): number {
  i = skipWs(text, i);
  if (i >= text.length) return -1;
  let depth = 0;
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const end = skipString(text, i);
      if (end < 0) return -1;
      i = end - 1;
      if (depth === 0) return end;
    } else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) {
      depth--;
      if (depth < 0) return -1;
      if (depth === 0) return i + 1;
    } else if (depth === 0) {
      // A bare scalar: number, true, false, null, NaN, Infinity.
      let j = i;
      while (j < text.length && !isScalarEnd(text.charCodeAt(j))) j++;
      return j > i ? j : -1;
    }
  }
  return -1;
}

/** The JSON string token text[from, to) decoded; a token without escapes is sliced, not parsed. */
export function jsonStringAt(text: string, from: number, to: number): string | undefined {
  const body = text.slice(from + 1, to - 1);
  if (body.indexOf('\\') < 0 && !hasControl(body)) return body;
  try {
    return JSON.parse(text.slice(from, to)) as string;
  } catch {
    return undefined;
  }
}

/** A raw control character (U+0000–U+001F) makes a JSON string invalid. */
const CONTROL = /[\u0000-\u001f]/;
const hasControl = (s: string): boolean => CONTROL.test(s);

const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/**
 * `JSON.parse` of one raw value, with the common small shapes (a string without escapes, a
 * number, true/false/null) decoded without the parser. Throws like `JSON.parse` on bad input.
 */
export function parseJsonValue(raw: string): unknown {
  const c = raw.charCodeAt(0);
  if (c === 0x22 && raw.length >= 2 && raw.charCodeAt(raw.length - 1) === 0x22) {
    const body = raw.slice(1, -1);
    if (body.indexOf('\\') < 0 && body.indexOf('"') < 0 && !hasControl(body)) return body;
  } else if ((c === 0x2d || (c >= 0x30 && c <= 0x39)) && raw.length < 24 && JSON_NUMBER.test(raw)) return Number(raw);
  else if (raw === 'true') return true;
  else if (raw === 'false') return false;
  else if (raw === 'null') return null;
  return JSON.parse(raw);
}

/**
 * Top-level key → [start, end) of its raw value, in file order; undefined when `text` is
 * not one complete JSON object (the caller then falls back to a full parse for the reason).
 */
export function topLevelSpans(text: string): Map<string, [number, number]> | undefined {
  const spans = new Map<string, [number, number]>();
  let i = skipWs(text, 0);
  if (text[i] !== '{') return undefined;
  i = skipWs(text, i + 1);
  if (text[i] === '}') return skipWs(text, i + 1) === text.length ? spans : undefined;
  for (;;) {
    if (text[i] !== '"') return undefined;
    const keyEnd = skipString(text, i);
    if (keyEnd < 0) return undefined;
    const key = jsonStringAt(text, i, keyEnd);
    if (key === undefined) return undefined;
    i = skipWs(text, keyEnd);
    if (text[i] !== ':') return undefined;
    const start = skipWs(text, i + 1);
    const end = skipValue(text, start);
    if (end < 0) return undefined;
    spans.set(key, [start, end]);
    i = skipWs(text, end);
    if (text[i] === ',') {
      i = skipWs(text, i + 1);
      continue;
    }
    if (text[i] === '}') return skipWs(text, i + 1) === text.length ? spans : undefined;
    return undefined;
  }
}

/**
 * Python's `json.dumps(value, indent=2, ensure_ascii=False)` of the value whose compact
 * `json.dumps(..., ensure_ascii=False)` text is `raw` (the form the harness writes into a
 * samples line). Strings and numbers are copied as written, so Python's own spelling of
 * floats and escapes is kept.
 */
export function pythonIndent2(raw: string): string {
  let out = '';
  let depth = 0;
  const pad = () => '\n' + '  '.repeat(depth);
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i]!;
    if (ch === '"') {
      const end = skipString(raw, i);
      if (end < 0) return out + raw.slice(i);
      out += raw.slice(i, end);
      i = end - 1;
    } else if (ch === '{' || ch === '[') {
      const next = skipWs(raw, i + 1);
      const close = ch === '{' ? '}' : ']';
      if (raw[next] === close) {
        out += ch + close;
        i = next;
      } else {
        depth++;
        out += ch + pad();
      }
    } else if (ch === '}' || ch === ']') {
      depth--;
      out += pad() + ch;
    } else if (ch === ',') out += ',' + pad();
    else if (ch === ':') out += ': ';
    else if (ch !== ' ' && ch !== '\n' && ch !== '\r' && ch !== '\t') out += ch;
  }
  return out;
}

/** The harness's `doc_hash` of a doc whose compact text is `raw`. */
export function harnessDocHash(raw: string): string {
  return hash('sha256', pythonIndent2(raw), 'hex');
}

/** Python's json.dumps writes NaN/Infinity as bare tokens; they become this marker + the token, so the value is reported as written, not the line. */
export const NAN_SENTINEL = '\u0000non-finite:';

/** The JSON object on `text`, or undefined; bare NaN / Infinity tokens (Python's json.dumps) parse as the marker. */
export function parseFull(text: string): Record<string, unknown> | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    if (!/NaN|Infinity/.test(text)) return undefined;
    try {
      value = JSON.parse(replaceNonFinite(text));
    } catch {
      return undefined;
    }
  }
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** Replaces bare NaN / Infinity / -Infinity tokens outside strings with a marker string. */
function replaceNonFinite(text: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (inString) {
      out += ch;
      if (ch === '\\') out += text[++i] ?? '';
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') {
      inString = true;
      out += ch;
      continue;
    }
    const token = text.startsWith('NaN', i) ? 'NaN' : text.startsWith('-Infinity', i) ? '-Infinity' : text.startsWith('Infinity', i) ? 'Infinity' : undefined;
    if (token) {
      out += JSON.stringify(NAN_SENTINEL + token);
      i += token.length - 1;
      continue;
    }
    out += ch;
  }
  return out;
}
