import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package's version, from the nearest package.json above this file (source or build). */
export function packageVersion(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    try {
      return JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')).version as string;
    } catch {
      dir = path.dirname(dir);
    }
  }
  return '0.0.0';
}
