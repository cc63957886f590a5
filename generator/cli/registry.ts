import type { CommandSpec } from './command.js';

/**
 * Every subcommand, in the order `--help` lists them. Each module is imported lazily so
 * that heavy dependencies load only for the command that runs.
 */
export const commandRegistry: Array<{ name: string; summary: string; load: () => Promise<CommandSpec> }> = [
];
