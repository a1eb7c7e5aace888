import type { Command } from 'commander';
import { segment } from '../api-client.ts';
import { requestAndPrint } from '../api-command.ts';
import { defineCommand } from '../command-definition.ts';
import { wholeNumber } from '../option-parsers.ts';

export function registerAnalyticsCommands(program: Command): void {
  defineCommand(program, 'analytics:platform', 'Show a channel\'s analytics over the last days', 'sps analytics:platform <channelId> --days 30')
    .argument('<integrationId>', 'channel id')
    .option('--days <n>', 'how many days back (server default: 7)', wholeNumber)
    .action(async (integrationId: string, options: { days?: string }) => {
      await requestAndPrint({ method: 'GET', path: `/analytics/${segment(integrationId)}`, query: { date: options.days } });
    });
  defineCommand(program, 'analytics:post', 'Show a post\'s analytics over the last days', 'sps analytics:post <postId> --days 7')
    .argument('<postId>', 'post id')
    .option('--days <n>', 'how many days back (server default: 7)', wholeNumber)
    .action(async (postId: string, options: { days?: string }) => {
      await requestAndPrint({ method: 'GET', path: `/analytics/post/${segment(postId)}`, query: { date: options.days } });
    });
}
