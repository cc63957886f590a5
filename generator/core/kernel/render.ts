import type { Finding, FindingPath, Tally } from './findings.js';
import { lookupFinding } from '../catalog.js';

export function formatPath(p: FindingPath): string {
  let out = p.file ?? '';
  if (p.line !== undefined) out += `:${p.line}`;
  else if (p.record !== undefined) out += `#${p.record}`;
  if (p.field) out += `${out ? ' ' : ''}${p.field}`;
  return out;
}

/** The single place where findings become prose. One finding is one line: names cannot add lines or terminal escapes. */
export function renderFinding(f: Finding): string {
  const kind = lookupFinding(f.code);
  const message = kind ? kind.message(f.args as Record<string, any>) : JSON.stringify(f.args);
  const where = formatPath(f.path);
  return escapeTerminal(`${f.severity}[${f.code}]${where ? ` ${where}` : ''}: ${message}`, false);
}

/**
 * Text bound for a terminal or CI log with every control character shown as an escape
 * (`\x1b`, `\u009b`), so a model, file or target name cannot move the cursor, recolour the
 * log, set the window title or write hyperlinks (ANSI CSI / OSC sequences). Newlines and tabs
 * are kept only when `keepLines` (multi-line tables); a finding stays on one line.
 */
export function escapeTerminal(text: string, keepLines = true): string {
  // C0 controls, DEL, C1 controls, and the Unicode line/paragraph separators and bidi overrides.
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, (ch) => {
    if (keepLines && (ch === '\n' || ch === '\t')) return ch;
    if (ch === '\n') return '\\n';
    if (ch === '\t') return '\\t';
    if (ch === '\r') return '\\r';
    const code = ch.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

export function renderTally(label: string, t: Tally): string {
  let out = `${label}: read ${t.read}, accepted ${t.accepted}, rejected ${t.rejected}`;
  const skipped = Object.entries(t.skipped ?? {}).sort(([a], [b]) => a.localeCompare(b));
  if (skipped.length) out += `; skipped ${skipped.map(([k, v]) => `${k}=${v}`).join(', ')}`;
  return out;
}
