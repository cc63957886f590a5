import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

/** Folders made by `tempDir` in the running test file; test/setup/temp-folders.ts removes them after its tests. */
const made: string[] = [];

/**
 * A temp folder removed after the test file that made it, wherever it was made (while
 * collecting, in a hook or inside a test). A hook registered from inside a running test or a
 * `beforeAll` is never run, so the removal is registered once per file by a setup file.
 */
export function tempDir(prefix = 'aptpace-'): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** Removes every folder `tempDir` made so far (test/setup/temp-folders.ts, after each file). */
export function removeTempDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}
