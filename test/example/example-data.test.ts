import { readFileSync } from 'node:fs';
import fg from 'fast-glob';
import { describe, expect, it } from 'vitest';
import { exampleFiles, CHECKPOINT } from '../setup/make-example.js';
import { fixtures } from '../helpers/env.js';

describe('built-in example data (fixtures/example)', () => {
  const expected = exampleFiles();

  it('is exactly what test/setup/make-example.ts generates (no hand edits, no drift)', () => {
    const committed = fg.sync('**/*', { cwd: fixtures('example') }).sort();
    expect(committed).toEqual([...expected.keys()]);
    for (const [rel, content] of expected) expect(readFileSync(fixtures('example', rel), 'utf8'), rel).toBe(content);
  });

  it('leaves the checkpoint under test without targets', () => {
    const keys = [...expected.keys()];
    expect(keys.some((k) => k.startsWith(`sources/`) && k.endsWith(`/${CHECKPOINT}.csv`))).toBe(true);
    expect(keys.some((k) => k.startsWith(`targets/${CHECKPOINT}/`))).toBe(false);
  });
});
