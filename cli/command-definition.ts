import type { Command } from 'commander';

/** A subcommand with its one-line description and an example shown by `--help`. */
export function defineCommand(parent: Command, name: string, summary: string, example: string): Command {
  return parent
    .command(name)
    .description(summary)
    .addHelpText('after', `\nExample:\n  $ ${example}\n`);
}
