import type { Command } from 'commander';
import { requestAndPrint } from '../api-command.ts';
import { defineCommand } from '../command-definition.ts';
import { wholeNumber } from '../option-parsers.ts';

export function registerEventCommands(program: Command): void {
  defineCommand(
    program,
    'events:list',
    'List the organization\'s events (the webhook events) after a cursor, oldest first',
    'sps events:list --after 665f1c2e9b1d4a0012345678 --limit 100',
  )
    .option(
      '--after <cursor>', 'the "cursor" of the last event read (the answer\'s "cursor"); omit to start at the oldest',
    )
    .option('--limit <n>', 'events a page, 1 to 100 (50 unless given)', wholeNumber)
    .action(async (options: { after?: string; limit?: string }) => {
      await requestAndPrint({ method: 'GET', path: '/events', query: { after: options.after, limit: options.limit } });
    });
}
