import type { Finding, FindingPath, Tally } from './findings.js';
import { lookupFinding } from '../catalog.js';

export function formatPath(p: FindingPath): string {
  let out = p.file ?? '';
  if (p.line !== undefined) out += `:${p.line}`;
  else if (p.record !== undefined) out += `#${p.record}`;
  if (p.field) out += `${out ? ' ' : ''}${p.field}`;
  return out;
}

/** The single place where findings become prose. */
export function renderFinding(f: Finding): string {
  const kind = lookupFinding(f.code);
  const message = kind ? kind.message(f.args as Record<string, any>) : JSON.stringify(f.args);
  const where = formatPath(f.path);
  return `${f.severity}[${f.code}]${where ? ` ${where}` : ''}: ${message}`;
}

export function renderTally(label: string, t: Tally): string {
  let out = `${label}: read ${t.read}, accepted ${t.accepted}, rejected ${t.rejected}`;
  const skipped = Object.entries(t.skipped ?? {}).sort(([a], [b]) => a.localeCompare(b));
  if (skipped.length) out += `; skipped ${skipped.map(([k, v]) => `${k}=${v}`).join(', ')}`;
  return out;
}
