import { mkdirSync, writeFileSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { alignMarkdownTables, displayWidth, formatTable } from '../../generator/cli/table.js';
import { cli } from '../helpers/cli.js';
import { fixtures } from '../helpers/env.js';
import { tempDir } from '../helpers/tmp.js';

describe('aligned tables', () => {
  it('counts CJK characters as two cells, combining marks and colour codes as none', () => {
    expect(displayWidth('abc')).toBe(3);
    expect(displayWidth('中文')).toBe(4);
    expect(displayWidth('e\u0301')).toBe(1);
    expect(displayWidth('\x1b[31mred\x1b[0m')).toBe(3);
  });

  it('pads columns by display width, so a CJK cell and a long path line up with the rest', () => {
    const lines = formatTable([['name', 'n'], ['中文任务', '12'], ['a/very/long/path/to/a/file.jsonl', '3']], { align: ['left', 'right'] });
    const endCells = lines.map((l) => displayWidth(l));
    expect(new Set(endCells).size).toBe(1);
    expect(lines[1]).toBe(`中文任务${' '.repeat(32 - 8 + 2)}12`);
  });

  it('aligns Markdown pipe tables and leaves other lines alone', () => {
    const md = 'title\n| method | MAE |\n|---|---|\n| pace-frozen | 1.5 |\n| 均值 | 10.25 |\nend';
    expect(alignMarkdownTables(md).split('\n')).toEqual([
      'title',
      '| method      | MAE   |',
      '| ----------- | ----- |',
      '| pace-frozen | 1.5   |',
      '| 均值        | 10.25 |',
      'end',
    ]);
  });

  it('inspect keeps every column aligned when a path is longer than 70 characters', async () => {
    const dir = tempDir();
    const deep = path.join(dir, 'a-folder-with-a-rather-long-name', 'and-another-nested-folder-name-that-goes-on');
    mkdirSync(deep, { recursive: true });
    const long = path.join(deep, 'canonical-trajectory-file-with-long-name.jsonl');
    writeFileSync(long, readFileSync(fixtures('trajectories', 'good', 'canonical.jsonl')));
    const res = await cli('inspect', long, fixtures('trajectories', 'good', 'canonical.jsonl'));
    const rows = res.stdout.split('\n').slice(0, 3);
    expect(long.length).toBeGreaterThan(70);
    // The format column starts at the same offset on the header and both rows.
    const starts = rows.map((r) => r.indexOf('canonical-jsonl') >= 0 ? r.indexOf('canonical-jsonl') : r.indexOf('format'));
    expect(new Set(starts).size).toBe(1);
  });
});
