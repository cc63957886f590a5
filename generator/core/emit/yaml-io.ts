import { Document, Scalar, parseDocument } from 'yaml';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import { isDeepStrictEqual } from 'node:util';
import { FunctionRef, SCHEMAS, toPlain, type SchemaName } from './task-config.js';

/**
 * Serialises a config object for the harness's YAML 1.1 loader (PyYAML CSafeLoader):
 * every string double-quoted (no `yes`/`null`/`1:30` coercion, no `{{`-as-mapping), no line
 * folding (a folded line would change a prompt), `!function` as a tagged scalar.
 */
export function toHarnessYaml(config: object): string {
  const doc = new Document(withTaggedFunctions(config), { version: '1.1' });
  const text = doc.toString({ lineWidth: 0, minContentWidth: 0, defaultStringType: 'QUOTE_DOUBLE', defaultKeyType: 'PLAIN' });
  return text.replace(NOT_PYYAML_PRINTABLE, escapeForPyYaml);
}

/**
 * `yaml` writes NEL, LS and PS raw inside double quotes, but YAML 1.1 treats them as line
 * breaks (PyYAML folds them to a space), and PyYAML rejects U+FFFE/U+FFFF outright. Every
 * string is double-quoted, so these characters only occur inside quotes: escape them there.
 */
const NOT_PYYAML_PRINTABLE = /[\u0085\u2028\u2029]|[^\x09\x0A\x0D\x20-\x7E\xA0-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

function escapeForPyYaml(c: string): string {
  const named: Record<string, string> = { '\u0085': '\\N', '\u2028': '\\L', '\u2029': '\\P' };
  return named[c] ?? `\\u${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

function withTaggedFunctions(value: unknown): unknown {
  if (value instanceof FunctionRef) {
    const scalar = new Scalar(value.ref);
    scalar.tag = '!function';
    return scalar;
  }
  if (Array.isArray(value)) return value.map(withTaggedFunctions);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = withTaggedFunctions(v);
    return out;
  }
  return value;
}

/** Reads emitted YAML back as a YAML 1.1 loader would, `!function x` ↦ `{"!function": "x"}`. */
export function readBackYaml(text: string): { value: unknown; ok: boolean } {
  const doc = parseDocument(text, {
    version: '1.1',
    customTags: [{ tag: '!function', resolve: (ref: string) => ({ '!function': ref }) }],
  });
  if (doc.errors.length > 0 || doc.warnings.length > 0) return { value: undefined, ok: false };
  return { value: doc.toJS(), ok: true };
}

/** True when `text` reads back to exactly the object it was made from. */
export function roundTrips(config: object, text: string): boolean {
  const back = readBackYaml(text);
  return back.ok && isDeepStrictEqual(back.value, toPlain(config));
}

let ajv: Ajv2020 | undefined;
const validators = new Map<SchemaName, ValidateFunction>();

export interface SchemaProblem {
  at: string;
  problem: string;
}

/** Validates one config (in its plain JSON view) against the named schema. */
export function validateConfig(schema: SchemaName, config: object): SchemaProblem[] {
  let validate = validators.get(schema);
  if (!validate) {
    ajv ??= new Ajv2020({ allErrors: true, strict: true, strictRequired: false });
    validate = ajv.compile(SCHEMAS[schema]);
    validators.set(schema, validate);
  }
  if (validate(toPlain(config))) return [];
  return (validate.errors ?? []).map((e) => ({ at: e.instancePath, problem: `${e.keyword}: ${e.message ?? ''}`.trim() }));
}
