import { createRequire } from 'node:module';
import type compromise from 'compromise';
import { editDistance } from '../../kernel/suggest.js';

/**
 * What kind of thing a capitalised name is, so an entity swap puts a person where a person stood
 * and a place where a place stood. On the shared deep-research builds 61–65% of the English name
 * swaps put another kind of name there: "the academic expertise of Independent Uganda" for the first
 * president's, "the net worth of Net Worth", "Chancellor" for a month, "Identify South Korea" for
 * a president. A base model rejects those on sight, so the question stops measuring planning.
 *
 * The class, in this order of evidence:
 * - `month`, `weekday`: a month or day name (its abbreviations too);
 * - `place`: a country's English name or alias (i18n-iso-countries: "Chad" is a country here,
 *   not the first name compromise's lexicon has);
 * - `fragment`: words of a sentence, not a noun phrase: a phrase opening with a verb,
 *   conjunction, preposition, adverb or pronoun ("Identify South Korea", "While Democratic
 *   Party"), or closing with a preposition, conjunction or determiner ("Choice Between"). Put
 *   where a name stood it reads as garbage, so it neither replaces nor is replaced;
 * - `common`: a phrase opening with a determiner or a noun a heading capitalises ("The Golden
 *   Bear", "Key Candidates"), or an adjective made of a name ("Moscow-backed");
 * - `title`: an office, alone or as a phrase's head word ("President", "Austrian Chancellor",
 *   "Prime Minister"), unless the phrase is a person's name ("Stephen King");
 * - `demonym`: a single demonym ("Italian", "Chinese");
 * - `organization`, `place`, `event` (prizes, games, treaties, works): the head word of a
 *   phrase says so ("Anti-Fascist Council", "Eastern Europe", "Sydney Olympics");
 * - `adjective`: a single word the tagger reads as an adjective ("Olympic", "Democratic"). It modifies the words after it,
 *   so any other word in its place reads as garbage ("won any Star medals" for Olympic ones):
 *   it neither replaces nor is replaced;
 * - `common`: a phrase opening with a demonym ("British Cinema", "Asian American") or ending in an
 *   English plural noun the tagger does not know as a surname ("Grammy Winners", "Sydney
 *   Writers"; "Tiger Woods" is a person's name): a heading or a title;
 * - `common`: a phrase opening with an English adjective ("Big Four"). The tagger also reads
 *   unknown names ending in -y as adjectives: "Kirsty Coventry" is `proper`, as below;
 * - `person`, `place`, `organization`: else what compromise's tagger and `people()`,
 *   `places()` and `organizations()` find in it;
 * - `proper`: a name compromise cannot place, mostly names of other languages ("Badra Gunba",
 *   "Abkhazia");
 * - `common`: a phrase of English words only that nothing above placed, a heading's, a brand's
 *   or a site's name ("Lyrics Translate", "Paramount Pictures", "Best Villains"): on the shared
 *   builds such phrases stood for people ("Paramount Pictures" for "Bob Marley");
 * - `common`: a phrase with no proper noun in it, and a single word that is an English word
 *   (the 275,000 of an-array-of-english-words: "Parliament", "Renewal") or that the context also
 *   writes in lower case.
 *
 * Titles, demonyms and the rest of `common` are kept apart: "Speaker of Lebanon" may stand for
 * "President of Lebanon", "American actors" for "Chinese actors", but neither "Republican of
 * Lebanon" nor "Dick actors".
 */
export type NameClass = 'person' | 'place' | 'organization' | 'event' | 'month' | 'weekday' | 'demonym' | 'title' | 'adjective' | 'proper' | 'common' | 'fragment';

const MONTH = /^(?:January|February|March|April|May|June|July|August|September|October|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)\.?$/;
const WEEKDAY = /^(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)$/;
/** Tags of a first word that make a capitalised phrase a sentence's words, not a name. */
const FRAGMENT_START = ['Verb', 'Conjunction', 'Preposition', 'Adverb', 'Pronoun', 'Gerund', 'Expression', 'QuestionWord'];
/** Tags of a word that is no name even alone. */
const SINGLE_FRAGMENT = ['Conjunction', 'Preposition', 'Pronoun', 'QuestionWord'];
/** Tags of a last word that leave a phrase unfinished; the tagger reads a capitalised "Between" as a name, so the commonest are listed too. */
const FRAGMENT_END = ['Preposition', 'Conjunction', 'Determiner'];
const FRAGMENT_END_WORD = /^(?:of|and|or|nor|but|for|to|in|on|at|by|with|from|into|onto|between|among|about|against|versus|vs|via|the|a|an|than|as)$/i;
const NAMED = ['ProperNoun', 'Person', 'Place', 'Organization', 'Honorific'];
/** Head words (a phrase's last) that say what it names, before compromise is asked. */
const HEADS: ReadonlyArray<[RegExp, NameClass]> = [
  [/^(?:Party|Council|Army|Association|Federation|Union|University|Institute|College|School|Academy|Company|Corporation|Corp|Inc|Ltd|Group|Bank|Committee|Commission|Ministry|Department|Agency|Office|Post|Times|News|Press|Journal|Hospital|Medicine|Museum|Church|Club|Team|League|Foundation|Society|Court|Parliament|Congress|Senate|Government|Assembly|Bureau|Service|Network|Records|Studios?|Library|Centre|Center|Organi[sz]ation|Nations)$/, 'organization'],
  [/^(?:City|County|Province|State|States|Republic|Kingdom|Island|Islands|River|Lake|Mountains?|Mount|Sea|Ocean|Valley|District|Region|Street|Avenue|Square|Bay|Peninsula|Europe|Asia|Africa|America|Village|Town)$/, 'place'],
  [/^(?:Prizes?|Awards?|Cup|Championships?|Games|Olympics|Agreement|Protocol|Treaty|Act|War|Race|Elections?|Festival|Conference|Summit|Finals?|Cast|Guides?|Series|Season|Show|Film|Album|Book|Novel|Revolution|Crisis)$/, 'event'],
];
/** Titles and offices, alone or as a phrase's head word ("Austrian Chancellor", "Prime Minister"). */
const TITLE = /^(?:President|Vice-President|Chancellor|Minister|Premier|Speaker|Secretary|Director|Chairman|Chairwoman|Chair|King|Queen|Prince|Princess|Emperor|Empress|Governor|Mayor|Ambassador|General|Professor|Prof|Dean|Deans|Leader|Chief|Senator|Pope|Bishop|Archbishop|CEO|Commissioner|Judge|Justice)$/;

// Both libraries are loaded on the first name classified (about half a second): a build that
// swaps no name never loads them.
const require = createRequire(import.meta.url);
let tagger: typeof compromise | undefined;
let countries: ReadonlySet<string> | undefined;
let english: ReadonlySet<string> | undefined;

function nlp(text: string): ReturnType<typeof compromise> {
  tagger ??= require('compromise') as typeof compromise;
  return tagger(text);
}

function isCountry(name: string): boolean {
  if (countries === undefined) {
    const lib = require('i18n-iso-countries') as { registerLocale(locale: unknown): void; getNames(lang: string, o: { select: 'all' }): Record<string, string[]> };
    lib.registerLocale(require('i18n-iso-countries/langs/en.json'));
    countries = new Set(Object.values(lib.getNames('en', { select: 'all' })).flat());
  }
  return countries.has(name);
}

/** Whether `word` (lower case) is an English word (an-array-of-english-words, loaded once). */
function isEnglishWord(word: string): boolean {
  english ??= new Set(require('an-array-of-english-words') as string[]);
  return english.has(word);
}

/** Classes read from the name alone; a single word of no known class is settled by the context (`nameClass`). */
const classes = new Map<string, NameClass | 'unknown-word'>();

/**
 * The class of `name`. `lowerCase`: the words the context writes in lower case; a single
 * capitalised word compromise cannot place is `common` when the context also writes it in
 * lower case (a heading's or a sentence's first word), else `proper`.
 */
export function nameClass(name: string, lowerCase?: ReadonlySet<string>): NameClass {
  const bare = bareName(name);
  let c = classes.get(bare);
  if (c === undefined) classes.set(bare, (c = classify(bare)));
  if (c !== 'unknown-word') return c;
  return lowerCase?.has(bare.toLowerCase()) ? 'common' : 'proper';
}

function classify(name: string): NameClass | 'unknown-word' {
  if (MONTH.test(name)) return 'month';
  if (WEEKDAY.test(name)) return 'weekday';
  if (isCountry(name)) return 'place';
  // "Moscow-backed", "Grammy-winning": an adjective made of a name.
  if (/-\p{Ll}/u.test(name)) return 'common';
  const doc = nlp(name);
  const terms: string[][] = doc.terms().json().map((t: { terms: Array<{ tags: string[] }> }) => t.terms[0]?.tags ?? []);
  const first = terms[0];
  if (!first) return 'common';
  const single = terms.length === 1;
  const nameWords = name.split(/\s+/);
  const last = nameWords.at(-1)!;
  // A single capitalised word the tagger reads as a verb or adverb is mostly a name that is
  // also an English word ("Wend", "Halsted"): a common word, as below. Alone, only a closed-class
  // word ("Between", "They") is no name at all.
  if (FRAGMENT_START.some((t) => first.includes(t))) return !single || SINGLE_FRAGMENT.some((t) => first.includes(t)) ? 'fragment' : 'common';
  if (!single && (FRAGMENT_END.some((t) => terms.at(-1)!.includes(t)) || FRAGMENT_END_WORD.test(last))) return 'fragment';
  if (first.includes('Determiner')) return 'common';
  // "Prime Minister", "Austrian Chancellor"; "Stephen King" is a person's name.
  if (TITLE.test(last) && (single || doc.people().length === 0)) return 'title';
  if (single && first.includes('Demonym')) return 'demonym';
  const byHead = single ? undefined : HEADS.find(([re]) => re.test(last));
  if (byHead) return byHead[1];
  // A heading or a title, not a person's name: "British Cinema" (the tagger reads "British" and
  // "Irish" as adjectives, "American" as a demonym), "Grammy Winners" ("Tiger Woods" is a person's).
  if (!single && (first.includes('Demonym') || (first.includes('Adjective') && /ish$/.test(nameWords[0]!)))) return 'common';
  if (!single && pluralNoun(last) && !terms.at(-1)!.some((t) => t === 'Person' || t === 'LastName')) return 'common';
  // The tagger also reads an unknown name ending in -y as an adjective ("Kirsty Coventry"): only
  // an English adjective opens a common phrase ("Big Four"), another one a name it cannot place.
  if (first.includes('Adjective')) return single ? 'adjective' : isEnglishWord(nameWords[0]!.toLowerCase()) ? 'common' : 'proper';
  if (doc.people().length > 0) return 'person';
  if (doc.places().length > 0) return 'place';
  if (doc.organizations().length > 0) return 'organization';
  // Read alone, a name's first word opens a sentence, so compromise cannot take its capital as a
  // proper noun's: a phrase must have another word it knows as one; a single word is judged by the context.
  if (single) return isEnglishWord(name.toLowerCase()) ? 'common' : 'unknown-word';
  // A phrase made only of English words that no lexicon places is a heading, a brand or a site's
  // name ("Lyrics Translate", "Medicine Main Menu", "Paramount Pictures"), not a person's name.
  // Two-letter words are left out: "Qi", "Xi" and "Li" are English words to a word list and Chinese names.
  if (nameWords.every((w) => { const word = w.replace(/[^\p{L}'-]+/gu, '').toLowerCase(); return word.length > 2 && isEnglishWord(word); })) return 'common';
  return terms.some((tags) => NAMED.some((t) => tags.includes(t))) ? 'proper' : 'common';
}

/**
 * Whether `replacement` may stand where `target` stands: the same class, or a `proper` name
 * beside a person, and a one-word `proper` name beside a place too. compromise's lexicon lacks
 * most names of other languages: a full name it cannot place is mostly a person's ("Badra
 * Gunba"), a single word a surname or a place ("Osler", "Abkhazia"); organisations and events
 * it lacks mostly carry a head word that says so. A `fragment` or an `adjective` never fits, and two personal
 * names ending in the same word may name the same person ("President Milanović" for "Zoran
 * Milanović"): an option that is as right as the gold.
 */
export function sameNameClass(target: string, replacement: string, lowerCase?: ReadonlySet<string>): boolean {
  const a = nameClass(target, lowerCase);
  const b = nameClass(replacement, lowerCase);
  if (a === 'fragment' || b === 'fragment' || a === 'adjective' || b === 'adjective') return false;
  if (spellingVariant(target, replacement)) return false;
  const personal = (c: NameClass) => c === 'person' || c === 'proper';
  if (personal(a) && personal(b) && lastWord(target) === lastWord(replacement)) return false;
  if (a === b) return true;
  const fits = (proper: string, other: NameClass) => other === 'person' || (other === 'place' && !/\s/.test(proper.trim()));
  return (a === 'proper' && fits(target, b)) || (b === 'proper' && fits(replacement, a));
}

/**
 * An English plural noun ("Winners", "Fruits", "Writers"): a heading's or a title's last word, not a
 * surname, unless the tagger knows the surname ("Tiger Woods", "Garth Brooks"; checked by the caller).
 */
function pluralNoun(word: string): boolean {
  const lower = bareName(word).toLowerCase();
  return lower.length > 3 && lower.endsWith('s') && !lower.endsWith('ss') && isEnglishWord(lower) && isEnglishWord(lower.slice(0, -1));
}

/** A name without the punctuation a sentence leaves after it. */
function bareName(name: string): string {
  return name.replace(/[:;,.]+$/, '');
}

function lastWord(name: string): string {
  return folded(bareName(name).trim().split(/\s+/).at(-1) ?? '');
}

/** Lower case without diacritics: "Milanović" reads "milanovic". */
function folded(text: string): string {
  return text.normalize('NFD').replace(/\p{M}+/gu, '').toLowerCase();
}

/**
 * Two spellings of one name, not two names: equal but for case, diacritics and punctuation
 * ("Milanovic", "Milanović"), or one edit apart in a name of at least five letters
 * ("Milanovich", "Strega" and "Trega"; two edits from twelve letters). A swap between them
 * offers the gold again. Names that differ by one letter ("Gambia", "Zambia") are given up too.
 */
export function spellingVariant(a: string, b: string): boolean {
  const x = folded(bareName(a)).replace(/[^\p{L}\p{N}]+/gu, '');
  const y = folded(bareName(b)).replace(/[^\p{L}\p{N}]+/gu, '');
  if (x === y) return true;
  const shorter = Math.min(x.length, y.length);
  if (shorter < 5) return false;
  return editDistance(x, y) <= (shorter >= 12 ? 2 : 1);
}
