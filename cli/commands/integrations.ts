import type { Command } from 'commander';
import { segment } from '../api-client.ts';
import { requestAndPrint } from '../api-command.ts';
import { defineCommand } from '../command-definition.ts';
import { jsonObject } from '../option-parsers.ts';

export function registerIntegrationCommands(program: Command): void {
  defineCommand(program, 'integrations:list', 'List the connected channels', 'sps integrations:list --customer <customerId>')
    .option('--customer <id>', 'only the channels of this customer')
    .action(async (options: { customer?: string }) => {
      await requestAndPrint({ method: 'GET', path: '/integrations', query: { customer: options.customer } });
    });
  defineCommand(program, 'integrations:settings', 'Show a channel\'s rules, text limit, post settings and tools', 'sps integrations:settings <channelId>')
    .argument('<id>', 'channel id')
    .action(async (id: string) => {
      await requestAndPrint({ method: 'GET', path: `/integration-settings/${segment(id)}` });
    });
  defineCommand(
    program, 'integrations:health', 'Show a channel\'s health: token, scopes, last post, rate limit, what to do',
    'sps integrations:health <channelId>',
  )
    .argument('<id>', 'channel id')
    .action(async (id: string) => {
      await requestAndPrint({ method: 'GET', path: `/integrations/${segment(id)}/health` });
    });
  defineCommand(program, 'integrations:trigger', 'Run one of a channel\'s tools (listed by integrations:settings)', 'sps integrations:trigger <channelId> instanceLimits --data \'{}\'')
    .argument('<id>', 'channel id')
    .argument('<methodName>', 'the tool\'s methodName')
    .option('--data <json>', 'the tool\'s input, a JSON object', jsonObject)
    .action(async (id: string, methodName: string, options: { data?: Record<string, unknown> }) => {
      await requestAndPrint({ method: 'POST', path: `/integration-trigger/${segment(id)}`, body: { methodName, ...(options.data === undefined ? {} : { data: options.data }) } });
    });
}
