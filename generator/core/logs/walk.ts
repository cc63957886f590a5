import * as path from 'node:path';
import type { Vfs } from '../kernel/vfs.js';

/**
 * Every file under `root`, depth-first in sorted order (deterministic across machines).
 * Hidden entries (`.git`, `.tmp` files from atomic writers) are skipped. Uses `list`/`stat`
 * rather than globbing so that folder names with glob metacharacters are taken literally.
 */
export async function walkFiles(vfs: Vfs, root: string, filter: (file: string) => boolean = () => true): Promise<string[]> {
  const out: string[] = [];
  async function visit(dir: string): Promise<void> {
    for (const name of await vfs.list(dir)) {
      if (name.startsWith('.')) continue;
      const full = path.join(dir, name);
      const st = await vfs.stat(full);
      if (!st) continue;
      if (st.isDirectory) await visit(full);
      else if (st.isFile && filter(full)) out.push(full);
    }
  }
  await visit(root);
  return out;
}
