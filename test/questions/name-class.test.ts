/**
 * Entity swaps put a name of the same kind where the gold's stood (operators/name-class.ts): a
 * person for a person, a month for a month. On the shared deep-research builds 61–65% of the
 * English name swaps did not ("the academic expertise of Independent Uganda" for a president's,
 * "the net worth of Net Worth", "Chancellor" for "January"), which a base model rejects on sight.
 */
import { describe, expect, it } from 'vitest';
import { Rng } from '../../generator/core/kernel/rng.js';
import { CorpusIndex } from '../../generator/core/questions/corpus.js';
import { nameClass, sameNameClass, spellingVariant } from '../../generator/core/questions/operators/name-class.js';
import { sameSlotSwaps } from '../../generator/core/questions/operators/off-target-argument.js';
import { STEP_OPERATORS } from '../../generator/core/questions/operators/index.js';
import type { StepCandidate } from '../../generator/core/questions/operators/types.js';
import { candidateOf } from '../../generator/core/questions/plans.js';
import { traj } from './validity-fixtures.js';

describe('name classes', () => {
  it('tell people, places, organisations, events, months and headings apart', () => {
    const expected: Record<string, string> = {
      'Vladislav Ardzinba': 'person',
      'Sir William Osler': 'person',
      'Ronald Reagan': 'person',
      Albania: 'place',
      // A country's name is a place, though compromise's lexicon has "Chad" as a first name.
      Chad: 'place',
      'United States': 'place',
      'Eastern Europe': 'place',
      'World Bank': 'organization',
      'European Union': 'organization',
      'Anti-Fascist Council': 'organization',
      'Peoples Party': 'organization',
      'Nobel Prize': 'event',
      'Sydney Olympics': 'event',
      January: 'month',
      Sept: 'month',
      Sunday: 'weekday',
      // Names compromise's lexicon lacks.
      'Badra Gunba': 'proper',
      'Yoon Suk Yeol': 'proper',
      Abkhazia: 'proper',
      // English words and demonyms, though capitalised alone.
      Renewal: 'common',
      Italian: 'demonym',
      Chinese: 'demonym',
      // A single adjective: never swapped.
      Olympic: 'adjective',
      Democratic: 'adjective',
      // Headings and titles.
      'Presidential Race': 'event',
      'Big Four': 'common',
      'Independent Uganda': 'common',
      'Moscow-backed': 'common',
      // Offices, alone or as a phrase's head; a person's name ending in one is a person's.
      'Austrian Chancellor': 'title',
      President: 'title',
      'Prime Minister': 'title',
      'Stephen King': 'person',
      'The Golden Bear': 'common',
      // A heading's, a brand's or a site's name, all English words, is no person's name (on the
      // shared builds these stood for people); a name whose first word the tagger reads as an
      // adjective ("Kirsty") but is no English word is a name it cannot place.
      'Lyrics Translate': 'common',
      'Medicine Main Menu': 'common',
      'Best Villains': 'common',
      'Paramount Pictures': 'common',
      'Kirsty Coventry': 'proper',
      // Two-letter syllables a word list has are no English words here.
      'Qi Xi': 'proper',
      'International Olympic': 'common',
      // Opening with a demonym, or ending in an English plural the tagger does not know as a
      // surname: a heading or a title. "Tiger Woods" is a person's name.
      'British Cinema': 'common',
      'Asian American': 'common',
      'Grammy Winners': 'common',
      'Sydney Writers': 'common',
      'Tiger Woods': 'person',
      'Johns Hopkins Medicine': 'organization',
      // A sentence's words, not a noun phrase: opening with a verb, conjunction or the like, or
      // left unfinished.
      'Identify South Korea': 'fragment',
      'While Democratic Party': 'fragment',
      'Key Candidates': 'fragment',
      // A heading whose first word the tagger reads as a verb ("net") is one too: never swapped.
      'Net Worth': 'fragment',
      'Choice Between': 'fragment',
      'Department of': 'fragment',
    };
    expect(Object.fromEntries(Object.keys(expected).map((n) => [n, nameClass(n)]))).toEqual(expected);
  });

  it('a single capitalised word is a common word where it is an English word or the context also writes it in lower case', () => {
    const context = new Set(['the', 'parliament', 'voted', 'law', 'sancheong', 'tea']);
    expect(nameClass('Sancheong', context)).toBe('common');
    expect(nameClass('Sancheong', new Set())).toBe('proper');
    // An English word is common whatever the context writes.
    expect(nameClass('Parliament', new Set())).toBe('common');
    expect(nameClass('Abkhazia', context)).toBe('proper');
    expect(sameNameClass('Law', 'Chicago', context)).toBe(false);
    expect(sameNameClass('Abkhazia', 'Georgia', context)).toBe(true);
    // A full name compromise cannot place is a person's, not a region's.
    expect(sameNameClass('Haxhi Lleshi', 'Eastern Europe', context)).toBe(false);
    expect(sameNameClass('Haxhi Lleshi', 'Ramiz Alia', context)).toBe(true);
  });

  it('a person takes a person or a name the lexicon lacks, never a place, an organisation or a heading', () => {
    expect(sameNameClass('Vladislav Ardzinba', 'Ronald Reagan')).toBe(true);
    expect(sameNameClass('Vladislav Ardzinba', 'Badra Gunba')).toBe(true);
    expect(sameNameClass('Badra Gunba', 'Ronald Reagan')).toBe(true);
    expect(sameNameClass('Vladislav Ardzinba', 'Albania')).toBe(false);
    expect(sameNameClass('Vladislav Ardzinba', 'World Bank')).toBe(false);
    expect(sameNameClass('Bob Marley', 'Paramount Pictures')).toBe(false);
    expect(sameNameClass('Kirsty Coventry', 'International Olympic')).toBe(false);
    expect(sameNameClass('Kirsty Coventry', 'Thomas Bach')).toBe(true);
    expect(sameNameClass('Badra Gunba', 'Presidential Race')).toBe(false);
    expect(sameNameClass('Badra Gunba', 'Anti-Fascist Council')).toBe(false);
    expect(sameNameClass('January', 'Chancellor')).toBe(false);
    expect(sameNameClass('January', 'August')).toBe(true);
  });

  it('an office stands only for an office, a demonym only for a demonym, and an adjective for nothing', () => {
    // On the shared builds: "Speaker of Lebanon" beside "Republican of Lebanon" and "House of
    // Lebanon" for the gold's "President of Lebanon"; "Dick actors" for "Chinese actors"; "won
    // any Star medals" for "Olympic medals".
    expect(sameNameClass('President', 'Speaker')).toBe(true);
    expect(sameNameClass('President', 'House')).toBe(false);
    expect(sameNameClass('President', 'Republican')).toBe(false);
    expect(sameNameClass('Chinese', 'American')).toBe(true);
    expect(sameNameClass('Chinese', 'Dick')).toBe(false);
    expect(sameNameClass('Olympic', 'Star')).toBe(false);
    expect(sameNameClass('Olympic', 'Paralympic')).toBe(false);
  });

  it('a fragment never stands for a name, and a personal name never for one ending in the same word', () => {
    // "impeached Identify South Korea in 2025", "(Choice Between)" for a president: garbage on sight.
    expect(sameNameClass('Identify South Korea', 'While Democratic Party')).toBe(false);
    expect(sameNameClass('Zoran Milanović', 'Choice Between')).toBe(false);
    expect(sameNameClass('Net Worth', 'Key Candidates')).toBe(false);
    // "President Milanović" is the gold's "Zoran Milanović": an option as right as the gold.
    expect(sameNameClass('Zoran Milanović', 'President Milanović')).toBe(false);
    expect(sameNameClass('Badra Gunba', 'Aslan Gunba')).toBe(false);
    expect(sameNameClass('Zoran Milanović', 'Andrej Plenković')).toBe(true);
    // Other kinds of name may share their head word: another party, another prize.
    expect(sameNameClass('Peoples Party', 'Democratic Party')).toBe(true);
    expect(sameNameClass('Nobel Prize', 'Pulitzer Prize')).toBe(true);
  });

  it('another spelling of the same name never stands for it (diacritics, one letter)', () => {
    // Beside the gold "Zoran Milanović", options naming "President Milanovic" and "Zoran
    // Milanovich" (the spelling of a page's title) were as right as the gold; "Trega" for "Strega".
    expect(sameNameClass('Zoran Milanović', 'President Milanovic')).toBe(false);
    expect(sameNameClass('Zoran Milanović', 'Zoran Milanovich')).toBe(false);
    expect(sameNameClass('Milanović', 'Milanovic')).toBe(false);
    expect(spellingVariant('Strega', 'Trega')).toBe(true);
    expect(spellingVariant('Milanović', 'Milanovich')).toBe(true);
    // Different names stay swappable, short ones even when one letter apart.
    expect(spellingVariant('Austria', 'Australia')).toBe(false);
    expect(spellingVariant('Slovakia', 'Slovenia')).toBe(false);
    expect(spellingVariant('Mali', 'Bali')).toBe(false);
    expect(sameNameClass('Zoran Milanović', 'Andrej Plenković')).toBe(true);
  });
});

const search = (plan: string, text: string, obs: string) => ({ plan, tool: 'web_search', args: { text }, obs });

/** A deep-research run of web_search steps whose observations name people, places, organisations, a prize, months and headings. */
const run = traj('abkhazia-founder', 'deep_research', "On March 1, 2025, Badra Gunba was elected president of a country. What civilization was the country's first president an expert on?", [
  search(
    'Find who was elected president of Abkhazia in 2025.',
    'Abkhazia president elected 2025',
    'Key Candidates: Badra Gunba was elected President of Abkhazia in the Presidential Race of February 2025, backed by the Peoples Party. Adgur Ardzinba came second. Net Worth of the candidates was not published. The European Union and the World Bank did not comment. Observers from Albania and the United States attended in January.',
  ),
  search(
    "Find the first president of Abkhazia, the country's founder.",
    'first president of Abkhazia',
    'Vladislav Ardzinba was the first president of Abkhazia. Sergei Bagapsh and Raul Khajimba followed him; Ronald Reagan and Leonid Brezhnev were leaders of the time. He was a historian before politics, at the Institute of Oriental Studies in Moscow. Independent Uganda and Eastern Europe are named in his papers; Sydney Olympics news came in August.',
  ),
  search('Find the academic expertise of Vladislav Ardzinba.', 'Vladislav Ardzinba academic expertise', 'He was an expert on the Hittite civilization.'),
]);

describe('entity swaps', () => {
  const t = run;
  const gold = candidateOf(t.steps[2]!);
  const corpus = new CorpusIndex([t]);
  /** The name each swap puts where "Vladislav Ardzinba" stood. */
  const swappedIn = (c: StepCandidate) => /^(.*) academic expertise$/.exec(String(c.action.args.text))?.[1];

  it('put a person where the gold names a person, under every seed', () => {
    const names = new Set<string>();
    for (const seed of ['0', '1', '2', '3', '4', '5']) {
      for (const c of sameSlotSwaps({ rng: new Rng(seed), trajectory: t, position: 2, gold, corpus }, 3, 3)) names.add(swappedIn(c)!);
      for (const c of STEP_OPERATORS.off_target_argument.propose({ rng: new Rng(seed), trajectory: t, position: 2, gold, corpus })) {
        const name = swappedIn(c);
        if (name !== undefined) names.add(name);
      }
    }
    expect(names.size).toBeGreaterThanOrEqual(3);
    for (const name of names) expect(['person', 'proper'], name).toContain(nameClass(name));
    // The people the context names are the swaps: the other presidents among them.
    expect([...names].filter((n) => ['Sergei Bagapsh', 'Raul Khajimba', 'Badra Gunba', 'Adgur Ardzinba'].includes(n)).length).toBeGreaterThan(0);
  });
});

describe('which place a same-slot swap varies', () => {
  // The gold searches the goal's city and a year neither the goal nor the previous step names.
  // Swapping the city leaves the gold the one option naming the goal's city and repeating the
  // previous step's words, which "the option most like the previous step" and "the option sharing
  // most words with the goal", an outside adversary's strongest single rules on the shared
  // builds, read without the run.
  const t = traj('boston-census', 'deep_research', 'How many people lived in Boston at the last census before the First World War?', [
    search(
      'Find the census history of Boston.',
      'Boston census history',
      'In 1911 the census counted 2,185,000 people in Chicago, 213,000 in Denver and 237,000 in Seattle, but it does not list Boston. Earlier and later counts: 1891, 1901, 1921.',
    ),
    search('Find the population of Boston in 1911.', 'Boston population 1911', 'Boston had 670,585 people in 1911.'),
  ]);
  const gold = candidateOf(t.steps[1]!);
  const corpus = new CorpusIndex([t]);

  it('is one neither the goal nor the previous step names, when the gold has one', () => {
    for (const seed of ['0', '1', '2', '3']) {
      const swaps = sameSlotSwaps({ rng: new Rng(seed), trajectory: t, position: 1, gold, corpus }, 3, 0);
      expect(swaps).toHaveLength(3);
      // The city stays; the year is what differs.
      for (const c of swaps) expect(String(c.action.args.text), seed).toMatch(/^Boston population (1891|1901|1921)$/);
    }
  });
});
