/** "Did you mean" for names typed by hand (config keys, stages, flags, target and benchmark names): one rule everywhere. */

/** Levenshtein distance: insertions, deletions and substitutions of one character each. */
export function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0] as number;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j] as number;
      prev[j] = Math.min(up + 1, (prev[j - 1] as number) + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length] as number;
}

/** Closest known name, compared without case and punctuation (`swe-bench` ~ `swebench`); null when nothing is close. */
export function closestName(name: string, known: readonly string[]): string | null {
  const norm = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '');
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const k of [...known].sort()) {
    const d = editDistance(norm(name), norm(k));
    if (d < bestDistance) {
      bestDistance = d;
      best = k;
    }
  }
  return best !== null && bestDistance <= Math.max(2, Math.floor(norm(name).length / 3)) ? best : null;
}

export function didYouMean(name: string, known: readonly string[]): string {
  const close = closestName(name, known);
  return close ? ` (did you mean ${close}?)` : '';
}
