/** A minimal unified-diff model: enough to perturb patches and re-render them faithfully. */
import { singleSpaced } from '../kernel/whitespace.js';
export interface DiffHunk {
  header: string;
  /** Lines with their leading marker (' ', '+', '-', '\\'). */
  lines: string[];
}

export interface DiffFile {
  /** Lines before the first hunk (`diff --git`, `index`, `---`, `+++`). */
  headerLines: string[];
  oldPath: string | null;
  newPath: string | null;
  hunks: DiffHunk[];
}

export function parseDiff(patch: string): DiffFile[] {
  const files: DiffFile[] = [];
  let file: DiffFile | undefined;
  let hunk: DiffHunk | undefined;
  const lines = patch.replace(/\r\n/g, '\n').split('\n');
  if (lines.at(-1) === '') lines.pop();
  for (const line of lines) {
    if (line.startsWith('diff --git ') || (line.startsWith('--- ') && (!file || file.hunks.length > 0 || file.headerLines.some((l) => l.startsWith('--- '))))) {
      file = { headerLines: [line], oldPath: null, newPath: null, hunks: [] };
      if (line.startsWith('--- ')) file.oldPath = stripPrefix(line.slice(4));
      files.push(file);
      hunk = undefined;
      continue;
    }
    if (!file) continue;
    if (line.startsWith('@@')) {
      hunk = { header: line, lines: [] };
      file.hunks.push(hunk);
      continue;
    }
    if (!hunk) {
      file.headerLines.push(line);
      if (line.startsWith('--- ')) file.oldPath = stripPrefix(line.slice(4));
      if (line.startsWith('+++ ')) file.newPath = stripPrefix(line.slice(4));
      continue;
    }
    hunk.lines.push(line);
  }
  return files.filter((f) => f.hunks.length > 0 || f.newPath || f.oldPath);
}

function stripPrefix(p: string): string | null {
  const path = p.split('\t')[0]!.trim();
  if (path === '/dev/null') return null;
  return path.replace(/^[ab]\//, '');
}

export function filePath(f: DiffFile): string | null {
  return f.newPath ?? f.oldPath;
}

export function formatDiff(files: DiffFile[]): string {
  let out = '';
  for (const f of files) {
    for (const l of f.headerLines) out += `${l}\n`;
    for (const h of f.hunks) {
      out += `${h.header}\n`;
      for (const l of h.lines) out += `${l}\n`;
    }
  }
  return out;
}

export function cloneDiff(files: DiffFile[]): DiffFile[] {
  return files.map((f) => ({ ...f, headerLines: [...f.headerLines], hunks: f.hunks.map((h) => ({ header: h.header, lines: [...h.lines] })) }));
}

/** Paths a patch changes, in order. */
export function changedFiles(patch: string): string[] {
  const out: string[] = [];
  for (const f of parseDiff(patch)) {
    const p = filePath(f);
    if (p && !out.includes(p)) out.push(p);
  }
  return out;
}

/** Function or class names from hunk headers (`@@ -1,2 +1,3 @@ def foo(`). */
export function hunkContexts(patch: string): string[] {
  const out: string[] = [];
  for (const f of parseDiff(patch))
    for (const h of f.hunks) {
      const ctx = /^@@[^@]*@@\s*(.*)$/.exec(h.header)?.[1]?.trim();
      if (ctx && !out.includes(ctx)) out.push(ctx);
    }
  return out;
}

/** Recomputes hunk header line counts after lines were edited. */
export function recount(h: DiffHunk): DiffHunk {
  const m = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@(.*)$/.exec(h.header);
  if (!m) return h;
  let oldCount = 0;
  let newCount = 0;
  for (const l of h.lines) {
    if (l.startsWith('+')) newCount++;
    else if (l.startsWith('-')) oldCount++;
    else if (!l.startsWith('\\')) {
      oldCount++;
      newCount++;
    }
  }
  return { header: `@@ -${m[1]},${oldCount} +${m[2]},${newCount} @@${m[3] ?? ''}`, lines: h.lines };
}

/**
 * Patch text compared for "same patch": file paths plus every hunk line with whitespace
 * collapsed. Context lines count, so the same change at another place is a different patch;
 * hunk headers do not, so a recount alone is not a difference.
 */
export function normalisePatch(patch: string): string {
  return parseDiff(patch)
    .map((f) => `${filePath(f)}\n${f.hunks.map((h) => h.lines.map((l) => `${l[0] ?? ' '}${singleSpaced(l.slice(1)).trim()}`).join('\n')).join('\n@@\n')}`)
    .join('\n');
}
