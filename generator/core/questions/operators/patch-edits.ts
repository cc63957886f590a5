import { type DiffFile, cloneDiff, formatDiff, recount } from '../diff.js';

/** Indices (file, hunk, line) of added lines, the ones perturbations touch. */
export function addedLines(files: DiffFile[]): Array<[number, number, number]> {
  const out: Array<[number, number, number]> = [];
  files.forEach((f, fi) => f.hunks.forEach((h, hi) => h.lines.forEach((l, li) => {
    if (l.startsWith('+') && l.slice(1).trim() !== '') out.push([fi, hi, li]);
  })));
  return out;
}

/** Rewrites one added line through `edit`; returns null when the edit changes nothing. */
export function editAddedLine(files: DiffFile[], at: [number, number, number], edit: (code: string) => string | null): string | null {
  const copy = cloneDiff(files);
  const [fi, hi, li] = at;
  const hunk = copy[fi]!.hunks[hi]!;
  const line = hunk.lines[li]!;
  const edited = edit(line.slice(1));
  if (edited === null || edited === line.slice(1)) return null;
  hunk.lines[li] = `+${edited}`;
  return formatDiff(copy);
}

export function render(files: DiffFile[]): string {
  return formatDiff(files.map((f) => ({ ...f, hunks: f.hunks.map(recount) })));
}
