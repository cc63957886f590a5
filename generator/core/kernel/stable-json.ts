import { createHash } from 'node:crypto';

/** JSON with object keys sorted recursively: the basis of content-derived ids and byte-identical output. */
export function stableStringify(value: unknown, indent?: number): string {
  return JSON.stringify(sortKeys(value), null, indent);
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object' && !(value instanceof Date)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value as object).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = sortKeys(v);
    }
    return out;
  }
  return value;
}

export function sha256(text: string | Uint8Array): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Short content id: first `length` hex chars of sha256 of the stable JSON. */
export function contentId(value: unknown, length = 16): string {
  return sha256(typeof value === 'string' ? value : stableStringify(value)).slice(0, length);
}
