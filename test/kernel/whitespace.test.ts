/**
 * The whitespace fast paths against the regular expressions they replace, on random strings
 * drawn from every kind of whitespace JavaScript's `\s` knows, the punctuation normaliseChoice
 * trims, CJK and astral characters: any difference in which runs collapse shows.
 */
import { describe, expect, it } from 'vitest';
import { Rng } from '../../generator/core/kernel/rng.js';
import { singleSpaced } from '../../generator/core/kernel/whitespace.js';
import { normaliseChoice } from '../../generator/core/questions/normalise.js';

const PIECES = [' ', ' ', '\n', '\t', '\r', '\v', '\f', '\u00a0', '\u2003', '\u3000', '\u2028', '\ufeff', 'a', 'B', 'z', '1', '.', ';', ':', '!', '?', '中', '文', '\ud83d\ude00', 'ﬁ', 'Ⅸ'];

function randomText(rng: Rng): string {
  return Array.from({ length: rng.int(40) }, () => rng.pick(PIECES)).join('');
}

describe('single-spaced text', () => {
  it('collapses every whitespace run to one space exactly as /\\s+/g does', () => {
    const rng = new Rng('whitespace');
    for (let i = 0; i < 20_000; i++) {
      const text = randomText(rng);
      expect(singleSpaced(text), JSON.stringify(text)).toBe(text.replace(/\s+/g, ' '));
    }
  });

  it('leaves choice normalisation as the regular-expression chain gave it', () => {
    const reference = (text: string) => text.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').replace(/[\s.;:!]+$/u, '').trim();
    const rng = new Rng('normalise-choice');
    for (let i = 0; i < 20_000; i++) {
      const text = randomText(rng);
      expect(normaliseChoice(text), JSON.stringify(text)).toBe(reference(text));
    }
    expect(normaliseChoice('  Run   the TESTS.;! \n')).toBe('run the tests');
  });
});
