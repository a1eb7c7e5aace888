import { Option, type Command } from 'commander';
import { requestAndPrint } from '../api-command.ts';
import { defineCommand } from '../command-definition.ts';
import { jsonObject } from '../option-parsers.ts';

export function registerVideoCommands(program: Command): void {
  defineCommand(program, 'video:generate', 'Generate a video into the media library', 'sps video:generate --type slideshow --output vertical --params \'{"prompt": "A launch teaser"}\'')
    .requiredOption('--type <type>', 'the kind of video to generate')
    .addOption(new Option('--output <format>', 'vertical or horizontal').choices(['vertical', 'horizontal']).makeOptionMandatory())
    .option('--params <json>', 'the generator\'s parameters, a JSON object', jsonObject)
    .action(async (options: { type: string; output: string; params?: Record<string, unknown> }) => {
      const body = { type: options.type, output: options.output, ...(options.params === undefined ? {} : { customParams: options.params }) };
      await requestAndPrint({ method: 'POST', path: '/generate-video', body });
    });
}
