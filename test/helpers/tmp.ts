import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, onTestFinished } from 'vitest';

/**
 * A temp folder removed when its owner ends: the test that made it (when called inside a test),
 * else the file's tests (when called while collecting or in a hook). `afterAll` registered from
 * inside a running test is never run, so a test's own folder needs `onTestFinished`.
 */
export function tempDir(prefix = 'aptpace-'): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  try {
    onTestFinished(remove);
  } catch {
    afterAll(remove);
  }
  return dir;
}
