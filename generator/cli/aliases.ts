/**
 * lm-eval's spellings, accepted where the concept is the same: the harness writes flags in
 * snake_case (`--output_path`, `--include_path`, `--model_args`), aptpace in kebab-case. A
 * `--foo_bar` the command knows as `--foo-bar` is that flag; `--output_path` is `--out` and
 * `--include_path` is `--suite` (the emitted suite folder) on commands that have them.
 */
export const HARNESS_CONCEPTS: Readonly<Record<string, string>> = {
  '--output_path': '--out',
  '--include_path': '--suite',
};

/** The argv with lm-eval spellings replaced by the command's own flags (up to a bare `--`). */
export function harnessSpellings(argv: readonly string[], longs: ReadonlySet<string>): string[] {
  const out: string[] = [];
  let options = true;
  for (const arg of argv) {
    if (arg === '--') options = false;
    if (!options || !arg.startsWith('--') || !arg.includes('_')) {
      out.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq < 0 ? arg : arg.slice(0, eq);
    const rest = eq < 0 ? '' : arg.slice(eq);
    const kebab = name.replace(/_/g, '-');
    const concept = HARNESS_CONCEPTS[name];
    const replacement = longs.has(name) ? name : longs.has(kebab) ? kebab : concept && longs.has(concept) ? concept : undefined;
    out.push(replacement ? `${replacement}${rest}` : arg);
  }
  return out;
}

/** A hint for a usage error caused by a snake_case flag the command does not know. */
export function spellingHint(argv: readonly string[]): string | undefined {
  const given = argv.find((a) => /^--[a-z0-9]+_[a-z0-9_]+/i.test(a));
  if (!given) return undefined;
  const name = given.split('=')[0]!;
  return `hint: aptpace spells flags in kebab-case (${name.replace(/_/g, '-')}); of lm-eval's spellings it accepts --output_path (as --out), --include_path (as --suite) and any --foo_bar whose --foo-bar the command has`;
}
