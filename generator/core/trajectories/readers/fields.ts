/**
 * Typed access to a record's optional fields. A field that is absent (or null) reads as null;
 * a field that is present with another type also reads as null, and says so: a
 * `traj-field-ignored` warning naming the field, the type expected and the type found. A reader
 * that reads its fields through this never drops a value silently.
 */
import { trajFinding } from '../findings.js';
import { isRecord, typeName } from '../text.js';
import { at, type RecordContext } from './reader.js';

export interface Fields {
  /** The underlying object (empty when the value was not one). */
  readonly raw: Readonly<Record<string, unknown>>;
  str(key: string): string | null;
  num(key: string): number | null;
  bool(key: string): boolean | null;
  /** A nested object's fields; an empty one (and a warning) when the value is not an object. */
  obj(key: string): Fields;
}

export function fieldsOf(ctx: RecordContext, value: unknown, base = ''): Fields {
  const raw: Record<string, unknown> = isRecord(value) ? value : {};
  const name = (key: string) => (base ? `${base}.${key}` : key);
  const warned = new Set<string>();
  const typed = <T>(key: string, expected: string, ok: (v: unknown) => v is T): T | null => {
    const v = raw[key];
    if (v === undefined || v === null) return null;
    if (ok(v)) return v;
    // Once per field, however often the reader consults it.
    if (warned.has(key)) return null;
    warned.add(key);
    ctx.findings.push(trajFinding('traj-field-ignored', at(ctx, name(key)), { expected, actual: typeName(v) }));
    return null;
  };
  return {
    raw,
    str: (key) => typed(key, 'a string', (v): v is string => typeof v === 'string'),
    num: (key) => typed(key, 'a finite number', (v): v is number => typeof v === 'number' && Number.isFinite(v)),
    bool: (key) => typed(key, 'true or false', (v): v is boolean => typeof v === 'boolean'),
    obj: (key) => fieldsOf(ctx, typed(key, 'an object', isRecord), name(key)),
  };
}
