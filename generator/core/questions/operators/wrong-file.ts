import { cloneDiff, filePath } from '../diff.js';
import { render } from './patch-edits.js';
import type { PatchOperator } from './types.js';

/** The same edit applied to another file the agent looked at. */
export const wrongFile: PatchOperator = {
  name: 'wrong_file',
  description: 'the same change applied to a different file',
  propose({ rng, gold, otherPaths }) {
    const own = gold.map(filePath).filter((p): p is string => Boolean(p));
    const candidates = otherPaths.filter((p) => !own.some((o) => o === p || o.endsWith(`/${p}`) || p.endsWith(`/${o}`)));
    if (candidates.length === 0 || gold.length === 0) return [];
    const fi = rng.int(gold.length);
    const from = filePath(gold[fi]!);
    if (!from) return [];
    const to = rng.pick(candidates).replace(/^\/?testbed\//, '').replace(/^\//, '');
    const copy = cloneDiff(gold);
    const f = copy[fi]!;
    f.headerLines = f.headerLines.map((l) => l.split(from).join(to));
    f.oldPath = f.oldPath ? to : null;
    f.newPath = f.newPath ? to : null;
    return [render(copy)];
  },
};
