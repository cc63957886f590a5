import { Buffer } from 'node:buffer';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { skipValue } from '../../generator/core/logs/harness/json-text.js';
import { skipValueBytes, stringRows } from '../../generator/core/logs/harness/line-tail.js';
import { LinePrefixCache, parseSampleLine } from '../../generator/core/logs/harness/sample-line.js';
import { fixtures } from '../helpers/env.js';

const OUT = fixtures('logs', 'harness-output', 'out');
const line = readFileSync(path.join(OUT, 'model-b', 'samples_aptd_mc_2026-11-29T08-32-45.130167.jsonl'), 'utf8').split('\n')[0]!;

/** The line with its text after `"filtered_resps": ` replaced by `rest`. */
const withTail = (rest: string) => line.slice(0, line.indexOf('"filtered_resps": ') + '"filtered_resps": '.length) + rest;
const filtered = () => {
  const at = line.indexOf('"filtered_resps": ') + '"filtered_resps": '.length;
  return line.slice(at, skipValue(line, at));
};

describe('post segments kept after a cached prefix', () => {
  const variants: [string, string][] = [
    ['the same line', line],
    ['another metric value', line.replace(/"acc": (\d)\.0/, (_, d: string) => `"acc": ${1 - Number(d)}.0`)],
    ['NaN as the metric value', line.replace(/"acc": \d\.0/, '"acc": NaN')],
    ['other filtered responses', line.replace('"filtered_resps": [[', '"filtered_resps": [["-99.5", "False"], [')],
    ['filtered_resps again after the hashes', line.replace(/}\s*$/, ', "filtered_resps": [["0", "True"]]}')],
    ['a non-ASCII filter name', line.replace('"filter": "none"', '"filter": "strikt-ü"')],
    ['an escaped quote in the responses', line.replace('"resps": [[', '"resps": [["a \\" ] b", "x"], [')],
  ];
  for (const [what, variant] of variants) {
    it(`${what}: the record a parse without the cache gives`, () => {
      const cache = new LinePrefixCache();
      parseSampleLine(line, true, cache);
      // Twice: once as a new post segment, once served from the kept one.
      for (let k = 0; k < 2; k++) {
        const hit = parseSampleLine(variant, true, cache)!;
        const plain = parseSampleLine(variant, true)!;
        expect(hit.rec).toEqual(plain.rec);
        expect(hit.content).toEqual(plain.content);
      }
    });
  }

  it('a post segment that is not JSON on its own terms (`,}`, an unbalanced value) is not read as one', () => {
    const cache = new LinePrefixCache();
    parseSampleLine(line, true, cache);
    expect(parseSampleLine(withTail(`${filtered()},}`), true, cache)).toBeUndefined();
    expect(parseSampleLine(withTail(`${filtered()}, "acc": 1.0`), true, cache)).toBeUndefined();
    expect(parseSampleLine(withTail(`[["1", "x"]`), true, cache)).toBeUndefined();
  });

  it('a post segment holding a prefix field again is not kept: the later field wins', () => {
    const cache = new LinePrefixCache();
    parseSampleLine(line, true, cache);
    const again = line.replace(/}\s*$/, ', "doc_id": 999}');
    expect(parseSampleLine(again, true, cache)!.rec.doc_id).toBe(999);
    expect(parseSampleLine(again, true, cache)!.rec).toEqual(parseSampleLine(again, true)!.rec);
  });
});

describe('skipValueBytes', () => {
  it('ends every value where skipValue ends it', () => {
    const values = ['"a\\"b"', '"\\\\"', '[["x", "y"], {"k": "]"}]', '12.5e3', 'NaN', 'true', '"ü → ✓"', '{"a": ["ü", {"b": "\\\\\\""}]}', '[1, 2', '"open'];
    for (const v of values) {
      const text = `${v}, "next": 1}`;
      const bytes = Buffer.from(text);
      const end = skipValue(text, 0);
      const byteEnd = skipValueBytes(bytes, 0, bytes.length);
      expect(byteEnd < 0 ? byteEnd : bytes.subarray(0, byteEnd).toString()).toBe(end < 0 ? end : text.slice(0, end));
    }
  });
});

describe('stringRows', () => {
  it('gives what JSON.parse gives, or leaves the text to it', () => {
    const parsed = ['[["-0.5", "False"], ["-1.25", "True"]]', '[]', '[[]]', '[[], ["a"]]', '[["ü ✓", ""]]', '[["a"], ["b", "c", "d"]]'];
    for (const raw of parsed) expect(stringRows(raw)).toEqual(JSON.parse(raw));
    const left = ['[["a\\"b"]]', '[[ "a"]]', '[["a" ,"b"]]', '[["a"],["b"]]', '[["a"]] ', ' [["a"]]', '[["a"]', '[[1, "a"]]', '[["a\tb"]]', '["a"]', '[["a"]]]', 'null', '[["\u0001"]]'];
    for (const raw of left) expect(stringRows(raw)).toBeUndefined();
  });
});
