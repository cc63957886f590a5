/**
 * harness-yaml: reading a harness checkout's task YAMLs (lm-eval 0.4.13 installed in .venv:
 * ~14k files, with `!function` tags) to check suite names. Compares the two YAML parsers on
 * the same texts (read into memory first, so only parsing is timed), then times the whole
 * checkout read `emit --harness` does (walk + read + js-yaml + include resolution).
 * HARNESS_CHECKOUT=<dir holding lm_eval/tasks> overrides the checkout.
 */
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { parse as yamlParse } from 'yaml';
import { jsYamlLoader, readCheckoutNames } from '../../generator/core/emit/harness-checkout.js';
import { nodeVfs } from '../../generator/core/kernel/node-vfs.js';
import { walkTree } from '../../generator/core/kernel/walk.js';
import { report, repoRoot, timed } from './measure.js';

const checkout =
  process.env.HARNESS_CHECKOUT ??
  (() => {
    const lib = path.join(repoRoot, '.venv', 'lib');
    const py = readdirSync(lib).find((d) => d.startsWith('python'));
    return path.join(lib, py!, 'site-packages');
  })();

const { files } = await walkTree(nodeVfs, path.join(checkout, 'lm_eval', 'tasks'), { filter: (f) => /\.ya?ml$/i.test(f) });
const texts = files.map((f) => readFileSync(f, 'utf8'));
const mb = texts.reduce((n, t) => n + Buffer.byteLength(t), 0) / 2 ** 20;

const jsYaml = await jsYamlLoader();
const functionTags = (['scalar', 'seq', 'map'] as const).map((collection) => ({ tag: '!function', ...(collection === 'scalar' ? {} : { collection }), resolve: (v: unknown) => ({ function: v }) }));
const yamlLoad = (text: string) => yamlParse(text, { customTags: functionTags as never, uniqueKeys: false, logLevel: 'silent' });

function parseAll(load: (t: string) => unknown): { failed: number } {
  let failed = 0;
  for (const t of texts) {
    try {
      load(t);
    } catch {
      failed++;
    }
  }
  return { failed };
}

const rounds = 3;
const best = async (load: (t: string) => unknown) => {
  let seconds = Infinity;
  let failed = 0;
  for (let i = 0; i < rounds; i++) {
    const r = await timed(() => parseAll(load));
    seconds = Math.min(seconds, r.seconds);
    failed = r.result.failed;
  }
  return { seconds, failed };
};
const js = await best(jsYaml);
const ya = await best(yamlLoad);
const full = await timed(() => readCheckoutNames(nodeVfs, checkout));
report('harness-yaml', {
  files: texts.length,
  MiB: mb,
  'js-yaml_s': js.seconds,
  'js-yaml_failed': js.failed,
  'yaml_s': ya.seconds,
  'yaml_failed': ya.failed,
  'yaml/js-yaml': ya.seconds / js.seconds,
  'checkout_read_s': full.seconds,
  names: full.result.names.size,
  version: full.result.harness_version,
});
