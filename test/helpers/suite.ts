import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

/** Every file of an emitted suite folder, by path relative to it (what `buildProxySuite` takes). */
export function readSuite(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (rel: string) => {
    for (const entry of readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const p = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(p);
      else files.set(p, readFileSync(path.join(dir, p), 'utf8'));
    }
  };
  walk('');
  return files;
}
