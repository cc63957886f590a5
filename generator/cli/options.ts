import { Option, type Command } from 'commander';

/** Commander reducer for a repeatable option (`--x a --x b` → ['a', 'b']). */
export const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** How score tables treat an id listed twice with different scores (PACE's gpqa files do). */
export function duplicatesOption(): Option {
  return new Option('--duplicates <policy>', 'score tables: an id repeated with a different score').choices(['error', 'first', 'last']).default('error');
}

/**
 * The options naming a fitted model and where one checkpoint's proxy-instance scores come
 * from, shared by `predict` and `check` so both read the same inputs the same way.
 */
export function checkpointInputOptions(cmd: Command): Command {
  return cmd
    .requiredOption('--model-file <file>', 'model.json written by `aptpace fit`')
    .requiredOption('--model <name>', 'the checkpoint, as named in its logs / score rows')
    .addOption(listOption('--logs <dir>', 'lm-evaluation-harness output folder of the checkpoint (run with --log_samples)'))
    .option('--store <dir>', 'score store holding the checkpoint (from `aptpace ingest`)')
    .addOption(listOption('--sources <path>', 'score table holding the checkpoint'))
    .option('--mapping <file>', 'model-name mapping JSON')
    .addOption(duplicatesOption())
    .option('--min-score <target=value>', 'fail (exit 1) when a predicted target score is below value (target scale); repeatable', collect);
}

/** Commander reducer for a repeatable option that also takes comma-separated names (`--x a,b --x c`). */
export const collectNames = (value: string, previous: string[] = []): string[] => [
  ...previous,
  ...value.split(',').map((v) => v.trim()).filter((v) => v.length > 0),
];

/**
 * A list option that is repeatable (`--x a --x b`), never commander-variadic (`<x...>`): a
 * variadic option swallows the positionals after it, so `build --report r.json DIR` lost DIR.
 * Paths are not split on commas (a path may contain one); `names: true` lists are.
 */
export function listOption(flags: string, description: string, kind: { names?: boolean } = {}): Option {
  const suffix = kind.names ? 'repeatable or comma-separated' : 'repeatable';
  return new Option(flags, `${description} (${suffix})`).argParser(kind.names ? collectNames : collect);
}

/**
 * Keeps an older flag name working, hidden from --help, by merging its values into the
 * canonical option before the command runs (one name per concept across commands).
 */
export function deprecatedAlias(cmd: Command, canonical: Option, aliasFlags: string): Command {
  const alias = new Option(aliasFlags).argParser(canonical.parseArg as (v: string, p: unknown) => unknown).hideHelp();
  cmd.addOption(alias);
  return cmd.hook('preAction', (self) => {
    const fromAlias = self.getOptionValue(alias.attributeName()) as string[] | undefined;
    if (!fromAlias?.length) return;
    const current = (self.getOptionValue(canonical.attributeName()) as string[] | undefined) ?? [];
    self.setOptionValue(canonical.attributeName(), [...current, ...fromAlias]);
    self.setOptionValue(alias.attributeName(), undefined);
  });
}

/** `--sources`: per-instance score tables (`--tables` is the deprecated name ingest used). */
export function addSourcesOption(cmd: Command, description: string): Command {
  const sources = listOption('--sources <path>', description);
  return deprecatedAlias(cmd.addOption(sources), sources, '--tables <path>');
}
