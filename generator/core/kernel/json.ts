/**
 * JSON.parse with a nesting bound. V8 parses any depth, but everything after the parse that
 * walks the value recursively (schema checks, stable stringify, rendering a finding's args)
 * overflows the stack somewhere past a few thousand levels. No real trajectory, mapping or
 * config nests that deep, so such a value is refused at the door, as invalid JSON with its
 * own message, and every reader's existing "invalid JSON at file:line" path reports it.
 */
export const MAX_JSON_DEPTH = 512;

export class JsonTooDeepError extends SyntaxError {
  constructor(readonly limit: number) {
    super(`value nests more than ${limit} levels deep`);
  }
}

export function parseJson(text: string, maxDepth = MAX_JSON_DEPTH): unknown {
  const value = JSON.parse(text) as unknown;
  if (typeof value === 'object' && value !== null && exceedsDepth(value, maxDepth)) throw new JsonTooDeepError(maxDepth);
  // Decoded UTF-8 holds no lone surrogate; only a \uD800-\uDFFF escape can make one. Such text
  // cannot be written back as UTF-8 (emit would fail much later), so it is refused where it is read.
  if (LONE_SURROGATE_ESCAPE.test(text) && hasLoneSurrogate(value)) throw new SyntaxError('a string holds a lone UTF-16 surrogate (an unpaired \\uD800-\\uDFFF escape), which is not valid Unicode text');
  return value;
}

const LONE_SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;
/** A high surrogate not followed by a low one, or a low one not preceded by a high one (code units, no `u` flag). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** True when any string or key in the value is not well-formed UTF-16. */
export function hasLoneSurrogate(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'string') {
      if (LONE_SURROGATE.test(v)) return true;
    } else if (Array.isArray(v)) {
      // One by one: spreading a 200,000-element array into push() overflows the stack.
      for (const item of v) stack.push(item);
    }
    else if (typeof v === 'object' && v !== null) {
      for (const key in v as Record<string, unknown>) {
        if (LONE_SURROGATE.test(key)) return true;
        stack.push((v as Record<string, unknown>)[key]);
      }
    }
  }
  return false;
}

/**
 * True when the parsed value nests deeper than `maxDepth`. Walks the value with an explicit
 * stack (never recursion, which is the point); cost is one visit per object or array, far less
 * than a pass over the text, whose strings dominate.
 */
export function exceedsDepth(value: unknown, maxDepth: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (depth > maxDepth) return true;
    if (Array.isArray(v)) {
      for (const item of v) if (typeof item === 'object' && item !== null) stack.push([item, depth + 1]);
    } else {
      for (const key in v as Record<string, unknown>) {
        const item = (v as Record<string, unknown>)[key];
        if (typeof item === 'object' && item !== null) stack.push([item, depth + 1]);
      }
    }
  }
  return false;
}
