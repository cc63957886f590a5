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
    .option('--logs <dirs...>', 'lm-evaluation-harness output folders of the checkpoint (run with --log_samples)')
    .option('--store <dir>', 'score store holding the checkpoint (from `aptpace ingest`)')
    .option('--sources <paths...>', 'score tables holding the checkpoint')
    .option('--mapping <file>', 'model-name mapping JSON')
    .addOption(duplicatesOption())
    .option('--min-score <target=value>', 'fail (exit 1) when a predicted target score is below value (target scale); repeatable', collect);
}
