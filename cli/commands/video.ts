import { Option, type Command } from 'commander';
import { activeCredential } from '../active-credential.ts';
import { callApi } from '../api-client.ts';
import { defineCommand } from '../command-definition.ts';
import { followGeneration } from '../follow-generation.ts';
import { jsonObject } from '../option-parsers.ts';
import { printJson, say } from '../output.ts';

interface GenerateOptions {
  type: string;
  output: string;
  params?: Record<string, unknown>;
  wait: boolean;
}

async function generate(options: GenerateOptions): Promise<void> {
  const credential = await activeCredential();
  const body = {
    type: options.type,
    output: options.output,
    ...(options.params === undefined ? {} : { customParams: options.params }),
  };
  // The CLI follows the progress itself (or leaves it): the api need not hold the request for the video.
  const headers = { Prefer: 'respond-async' };
  const answer = await callApi(credential, { method: 'POST', path: '/generate-video', body, headers });
  const { id } = answer.body as { id?: unknown };
  if (answer.status !== 202 || typeof id !== 'string') {
    printJson(answer.body);
    return;
  }
  if (!options.wait) {
    printJson(answer.body);
    say(`Still generating; check with \`sps media:get ${id}\`.`);
    return;
  }
  // Said first, so a user who stops waiting (Ctrl-C) knows the video is still being made.
  say(`Generating video ${id} (stop waiting at any time; \`sps media:get ${id}\` shows it later).`);
  printJson(await followGeneration(credential, id));
}

const example = 'sps video:generate --type slides --output vertical --params \'{"text": "Tea grows.\\n\\nPicked."}\'';

export function registerVideoCommands(program: Command): void {
  defineCommand(program, 'video:generate', 'Generate a video into the media library, showing its progress', example)
    .requiredOption('--type <type>', 'the kind of video: slides (text and library images) or ai-slides (a prompt)')
    .addOption(new Option('--output <format>', 'vertical (1080x1920) or horizontal (1920x1080)')
      .choices(['vertical', 'horizontal']).makeOptionMandatory())
    .option('--params <json>', 'the generator\'s parameters, a JSON object (slides: text, images, voice, style)',
      jsonObject)
    .option('--no-wait', 'print the pending media at once instead of following the generation')
    .action(generate);
}
