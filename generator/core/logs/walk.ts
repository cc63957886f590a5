import type { Vfs } from '../kernel/vfs.js';
import { walkTree } from '../kernel/walk.js';
import type { FindingSink } from './sink.js';

/**
 * Every file under `root`, depth-first in sorted order (deterministic across machines), via
 * the kernel walker: hidden entries (`.git`, atomic-write temporaries) are skipped, folder
 * names with glob metacharacters are taken literally, a symlink loop or a dangling link is
 * reported to `sink` (when given) instead of recursing or crashing.
 */
export async function walkFiles(vfs: Vfs, root: string, filter: (file: string) => boolean = () => true, sink?: FindingSink): Promise<string[]> {
  const { files, findings } = await walkTree(vfs, root, { filter });
  sink?.pushAll(findings);
  return files;
}
