/**
 * The containment check resolves where a write really lands, but a subfolder can be swapped
 * for a link to somewhere else after the check. A Vfs with a hook races exactly that: it swaps
 * `sub` for a link to a folder outside --out (or moves `sub` itself out and links to it) at
 * each step of a write (before the write starts, after its folders are made, after the temp
 * file is opened, after it is written, after it is renamed into place). The write must be
 * refused with output-outside-root and nothing outside may change.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeVfs } from '../../generator/core/kernel/node-vfs.js';
import { OutputFolder } from '../../generator/core/kernel/output.js';
import type { Vfs, WriteStep } from '../../generator/core/kernel/vfs.js';
import { tempDir } from '../helpers/tmp.js';

const base = tempDir('aptpace-toctou-');
let n = 0;

type Attack = 'swap' | 'move-out';
type When = 'before-write' | WriteStep;
const STEPS: When[] = ['before-write', 'folders-made', 'temp-opened', 'temp-written', 'published'];

/** A root with `sub/old.txt` and, beside it, an outside folder with a file of its own. */
function scene() {
  const dir = path.join(base, `s${++n}`);
  const root = path.join(dir, 'out');
  const outside = path.join(dir, 'outside');
  mkdirSync(path.join(root, 'sub'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(path.join(root, 'sub', 'old.txt'), 'old\n');
  writeFileSync(path.join(outside, 'victim.txt'), 'victim\n');
  const attack = (kind: Attack) => {
    const sub = path.join(root, 'sub');
    if (kind === 'swap') {
      renameSync(sub, `${sub}.aside`);
      symlinkSync(outside, sub);
    } else {
      renameSync(sub, path.join(outside, 'moved'));
      symlinkSync(path.join(outside, 'moved'), sub);
    }
  };
  return { root, outside, attack };
}

/** Every file below `dir` with its content (links listed, not followed). */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const rel of readdirSync(dir, { recursive: true }) as string[]) {
    const p = path.join(dir, rel);
    const st = statSync(p, { throwIfNoEntry: false });
    out[rel] = st?.isFile() ? readFileSync(p, 'utf8') : st?.isDirectory() ? '<dir>' : '<other>';
  }
  return out;
}

/**
 * What outside holds after the refused write: what it held, plus, after a move-out, the moved
 * folder exactly as it was inside. Moved out after the rename, the folder held our new file
 * (old.txt was replaced while still inside): the write removes its own file once it finds it
 * outside, so nothing it wrote stays there.
 */
function expected(attack: Attack, when: When, before: Record<string, string>): Record<string, string> {
  if (attack === 'swap') return before;
  return when === 'published' ? { ...before, moved: '<dir>' } : { ...before, moved: '<dir>', [path.join('moved', 'old.txt')]: 'old\n' };
}

/** nodeVfs whose writes and removals run `attack` once, at `when`. */
function racing(when: When, attack: () => void): Vfs {
  let fired = false;
  const fire = () => {
    if (fired) return;
    fired = true;
    attack();
  };
  const onStep = (s: WriteStep) => {
    if (s === when) fire();
  };
  return {
    ...nodeVfs,
    async writeFileAtomic(p, data, options) {
      if (when === 'before-write') fire();
      return nodeVfs.writeFileAtomic(p, data, { ...options, onStep });
    },
    async openAtomicWriter(p, options) {
      if (when === 'before-write') fire();
      return nodeVfs.openAtomicWriter(p, { ...options, onStep });
    },
    async remove(p, options) {
      if (when === 'before-write') fire();
      return nodeVfs.remove(p, options);
    },
  };
}

describe('a subfolder swapped for a link between the containment check and the write', () => {
  for (const attack of ['swap', 'move-out'] as const) {
    for (const when of STEPS) {
      it(`${attack} at ${when}: OutputFolder.write is refused and nothing outside changes`, async () => {
        const { root, outside, attack: run } = scene();
        const before = snapshot(outside);
        const folder = new OutputFolder(racing(when, () => run(attack)), root, { force: true });
        await expect(folder.write(path.join('sub', 'old.txt'), 'new\n')).rejects.toMatchObject({ code: 'output-outside-root' });
        expect(snapshot(outside)).toEqual(expected(attack, when, before));
      });

      it(`${attack} at ${when}: a write into folders below the swapped one is refused and nothing outside changes`, async () => {
        const { root, outside, attack: run } = scene();
        const before = snapshot(outside);
        const folder = new OutputFolder(racing(when, () => run(attack)), root, { force: true });
        await expect(folder.write(path.join('sub', 'b', 'c', 'new.txt'), 'new\n')).rejects.toMatchObject({ code: 'output-outside-root' });
        // Folders the write made inside before a move-out went out with it, empty; nothing else is new or changed
        // (old.txt is not the file written here, so it stays as it was even at `published`).
        const madeInside = new Set([path.join('moved', 'b'), path.join('moved', 'b', 'c')]);
        const rest = Object.fromEntries(Object.entries(snapshot(outside)).filter(([rel, v]) => !(madeInside.has(rel) && v === '<dir>')));
        expect(rest).toEqual(expected(attack, 'before-write', before));
      });

      it(`${attack} at ${when}: a streamed confined write is refused and nothing outside changes`, async () => {
        const { root, outside, attack: run } = scene();
        const before = snapshot(outside);
        const vfs = racing(when, () => run(attack));
        const attempt = async () => {
          const w = await vfs.openAtomicWriter(path.join(root, 'sub', 'old.txt'), { force: true, within: root });
          await w.write('new\n');
          await w.commit();
        };
        await expect(attempt()).rejects.toMatchObject({ code: 'output-outside-root' });
        expect(snapshot(outside)).toEqual(expected(attack, when, before));
      });
    }
  }

  it('folders still to be made below a swapped folder are not made outside', async () => {
    const { root, outside, attack } = scene();
    const before = snapshot(outside);
    const folder = new OutputFolder(racing('before-write', () => attack('swap')), root);
    await expect(folder.write(path.join('sub', 'new', 'deeper', 'file.txt'), 'x\n')).rejects.toMatchObject({ code: 'output-outside-root' });
    expect(snapshot(outside)).toEqual(before);
  });

  it('a set written under the lock stops at the swapped folder; the files before it are inside', async () => {
    const { root, outside, attack } = scene();
    const before = snapshot(outside);
    let writes = 0;
    const vfs: Vfs = {
      ...nodeVfs,
      async writeFileAtomic(p, data, options) {
        // The manifest and a.txt go first; the swap comes between the set's checks and sub/old.txt.
        if (++writes === 3) attack('swap');
        return nodeVfs.writeFileAtomic(p, data, options);
      },
    };
    const folder = new OutputFolder(vfs, root, { force: true, set: 'test' });
    await expect(folder.writeSet({ 'a.txt': 'a\n', [path.join('sub', 'old.txt')]: 'new\n' })).rejects.toMatchObject({ code: 'output-outside-root' });
    expect(snapshot(outside)).toEqual(before);
    expect(readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('a\n');
  });

  it('a removal is refused when the folder was swapped after the check', async () => {
    const { root, outside, attack } = scene();
    writeFileSync(path.join(outside, 'old.txt'), 'outside old\n');
    const before = snapshot(outside);
    const folder = new OutputFolder(racing('before-write', () => attack('swap')), root, { force: true });
    await expect(folder.remove(path.join('sub', 'old.txt'))).rejects.toMatchObject({ code: 'output-outside-root' });
    expect(snapshot(outside)).toEqual(before);
  });

  it('without a swap every step runs and the file is written', async () => {
    const { root } = scene();
    const seen: WriteStep[] = [];
    const vfs: Vfs = { ...nodeVfs, writeFileAtomic: (p, d, o) => nodeVfs.writeFileAtomic(p, d, { ...o, onStep: (s) => void seen.push(s) }) };
    await new OutputFolder(vfs, root, { force: true }).write(path.join('sub', 'old.txt'), 'new\n');
    expect(seen).toEqual(['folders-made', 'temp-opened', 'temp-written', 'published']);
    expect(readFileSync(path.join(root, 'sub', 'old.txt'), 'utf8')).toBe('new\n');
    expect(readdirSync(path.join(root, 'sub'))).toEqual(['old.txt']);
  });
});
