/** Edit distance, for "did you mean" hints on misspelt keys and names. */
export function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j]!;
      prev[j] = Math.min(up + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length]!;
}

/**
 * The closest of `names` to `input` when it is close enough to be a slip (at most a third of
 * the longer name's length, and at most 3 edits); ties go to the first in `names`.
 */
export function closestName(input: string, names: readonly string[]): string | undefined {
  const norm = (s: string) => s.toLowerCase().replace(/[-_\s]/g, '');
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const name of names) {
    const d = norm(input) === norm(name) ? 0 : editDistance(input.toLowerCase(), name.toLowerCase());
    if (d < bestDistance) {
      best = name;
      bestDistance = d;
    }
  }
  if (best === undefined) return undefined;
  const limit = Math.min(3, Math.ceil(Math.max(input.length, best.length) / 3));
  return bestDistance <= limit ? best : undefined;
}
