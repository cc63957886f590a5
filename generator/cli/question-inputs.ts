import * as path from 'node:path';
import type { Vfs } from '../core/kernel/vfs.js';
import { walkTree } from '../core/kernel/walk.js';

/**
 * Question files named on the command line (audit, review, emit): plain paths are kept as typed
 * (so a missing one is reported by the reader), patterns with glob characters are expanded,
 * folders are walked for `*.jsonl` with the kernel walker (a link loop such as `up -> ..` is
 * entered once). A match that is not a regular file (a FIFO, a socket, a dangling link) is kept
 * so the reader reports it instead of skipping it silently; a file reached twice is read once.
 */
export async function expandQuestionInputs(vfs: Vfs, patterns: string[], cwd: string): Promise<string[]> {
  const out: string[] = [];
  const seen = new Set<string>();
  const once = async (file: string) => {
    const real = await vfs.realpath(path.resolve(cwd, file)).catch(() => path.resolve(cwd, file));
    if (seen.has(real)) return;
    seen.add(real);
    out.push(file);
  };
  for (const p of patterns) {
    if (/[*?[\]{}]/.test(p)) {
      for (const match of await vfs.glob([p], { cwd, absolute: true, onlyFiles: false })) {
        if ((await vfs.stat(match).catch(() => undefined))?.isDirectory) continue;
        await once(match);
      }
    } else if ((await vfs.stat(path.resolve(cwd, p)).catch(() => undefined))?.isDirectory) {
      const jsonl = (f: string) => f.endsWith('.jsonl');
      const walked = await walkTree(vfs, path.resolve(cwd, p), { filter: jsonl });
      const odd = walked.findings.filter((f) => f.code !== 'fs-symlink-loop' && f.path.file && jsonl(f.path.file)).map((f) => f.path.file!);
      for (const file of [...walked.files, ...odd].sort()) await once(file);
    } else await once(p);
  }
  return out;
}
