import { allOptions, optionFeatures, survivors, uniformCredit } from '../features.js';
import type { ShortcutBaseline } from './types.js';

/**
 * An option that calls a tool the prompt does not offer is wrong on sight. Only options whose
 * tool is structural (`execution.name`, a `{"name"}` call, `<function=…>`) and questions whose
 * offered set is known (recorded, or listed under `Tool set:`) are judged; the rest are kept.
 */
export const offeredTool: ShortcutBaseline = {
  title: 'Drop options calling a tool not offered',
  description: 'drop options whose tool is not in the offered tool set, guess uniformly among the rest',
  independent: true,
  sides: 'both',
  credits: (questions) => questions.map((q) => uniformCredit(survivors(allOptions(q), optionFeatures(q).offTool), q.gold)),
};
