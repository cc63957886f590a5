/**
 * Appends `items` to `target` one by one. `target.push(...items)` passes every item as an
 * argument and overflows the stack past roughly 100,000 of them (a 200,000-row table, a
 * million findings); this never does.
 */
export function appendAll<T>(target: T[], items: Iterable<T>): T[] {
  for (const item of items) target.push(item);
  return target;
}

/** Smallest and largest of `values` without spreading them into arguments; undefined when empty. */
export function extent(values: Iterable<number>): { min: number; max: number } | undefined {
  let min = Infinity;
  let max = -Infinity;
  let any = false;
  for (const v of values) {
    any = true;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  return any ? { min, max } : undefined;
}
