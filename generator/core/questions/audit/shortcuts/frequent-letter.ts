import { argmaxCredit, type ShortcutBaseline } from './types.js';

/**
 * Answer every question with the letter that is most often gold in the rest of the task
 * (leave-one-out, so a question never votes for its own answer). This is what a model picks
 * up from a skewed few-shot prompt or from training on the set. Leave-one-out lowers the
 * count of each question's own letter, so on a perfectly balanced task the rule scores
 * below chance by construction; only scores above chance are therefore evidence of a
 * shortcut (`sides: 'above'`), and letter-balance catches skew in the other direction.
 */
export const frequentLetter: ShortcutBaseline = {
  title: 'Letter prior: most frequent gold letter (leave-one-out)',
  description: 'pick the letter that is gold most often among the other questions of the task',
  independent: false,
  sides: 'above',
  credits: (questions) => {
    const maxChoices = Math.max(0, ...questions.map((q) => q.choices.length));
    const counts = new Array<number>(maxChoices).fill(0);
    for (const q of questions) counts[q.gold] = (counts[q.gold] ?? 0) + 1;
    return questions.map((q) => {
      const others = q.choices.map((_, letter) => (counts[letter] ?? 0) - (letter === q.gold ? 1 : 0));
      return argmaxCredit(others, q.gold);
    });
  },
  totalForGolds(choiceCounts, golds) {
    let maxChoices = 0;
    for (const k of choiceCounts) if (k > maxChoices) maxChoices = k;
    const counts = new Int32Array(maxChoices);
    for (const g of golds) counts[g]!++;
    let total = 0;
    for (let i = 0; i < golds.length; i++) {
      const gold = golds[i]!;
      let best = -1;
      let ties = 0;
      for (let letter = 0; letter < choiceCounts[i]!; letter++) {
        const c = counts[letter]! - (letter === gold ? 1 : 0);
        if (c > best) {
          best = c;
          ties = 1;
        } else if (c === best) ties++;
      }
      if (counts[gold]! - 1 === best) total += 1 / ties;
    }
    return total;
  },
};
