import type { Command } from 'commander';
import { requestAndPrint } from '../api-command.ts';
import { defineCommand } from '../command-definition.ts';
import { wholeNumber } from '../option-parsers.ts';

export function registerNotificationCommands(program: Command): void {
  defineCommand(program, 'notifications:list', 'List notifications, newest first, 100 a page', 'sps notifications:list --page 1')
    .option('--page <n>', 'page number, from 0', wholeNumber)
    .action(async (options: { page?: string }) => {
      await requestAndPrint({ method: 'GET', path: '/notifications', query: { page: options.page } });
    });
}
