import { Argument, Option, type Command } from 'commander';
import { z } from 'zod';
import { segment } from '../api-client.ts';
import { requestAndPrint } from '../api-command.ts';
import { CliError } from '../cli-error.ts';
import { defineCommand } from '../command-definition.ts';
import { collect, jsonObject, wholeNumber } from '../option-parsers.ts';
import { mediaReference, postBody, postTypes, type PostFlags } from '../post-body.ts';

/** What POST /posts/validate answers, as far as the exit code reads it. */
const validationAnswer = z.object({ problems: z.array(z.unknown()) });

/** The flags that build a POST /posts body: posts:create sends it, posts:validate checks it. */
function withPostFlags(command: Command): Command {
  return command
    .option('--channel <id>', 'channel to post on (repeat for several)', collect)
    .option('--content <text>', 'the text; repeat it and the later ones become thread replies or comments', collect)
    .addOption(new Option(
      '--type <type>', 'draft, schedule, now, or queue: the channel\'s next free posting slot (default: now)',
    ).choices(postTypes))
    .option('--date <iso>', 'publish date for --type schedule; with queue, no slot before it (ISO 8601, UTC if bare)')
    .option('--media <id:path>', 'uploaded media for the first part, as the id and path an upload returned (repeatable)', mediaReference)
    .option('--settings <json>', 'the platform\'s post settings, a JSON object (see integrations:settings)', jsonObject)
    .option('--file <post.json>', 'send this file as the whole request body instead of using the flags');
}

/** The recurring-post flags of posts:create. */
interface RepeatFlags {
  everyDays?: string;
  repeatRule?: string;
  repeatUntil?: string;
  repeatCount?: string;
}

/** `intervalInDays` or `repeat` of POST /posts from the flags; the server checks the values. */
function repeatFields(flags: RepeatFlags): Record<string, unknown> {
  const { everyDays, repeatRule, repeatUntil, repeatCount } = flags;
  if ((repeatUntil !== undefined || repeatCount !== undefined) && repeatRule === undefined) {
    throw new CliError('--repeat-until and --repeat-count go with --repeat-rule');
  }
  return {
    ...(everyDays === undefined ? {} : { intervalInDays: Number(everyDays) }),
    ...(repeatRule === undefined ? {} : {
      repeat: {
        rule: repeatRule,
        ...(repeatUntil === undefined ? {} : { until: repeatUntil }),
        ...(repeatCount === undefined ? {} : { count: Number(repeatCount) }),
      },
    }),
  };
}

export function registerPostCommands(program: Command): void {
  withPostFlags(defineCommand(
    program, 'posts:create', 'Create a post on one or more channels: publish now, schedule, or keep as a draft',
    'sps posts:create --channel <channelId> --content "Hello" --content "A reply in the thread" '
      + '--type schedule --date 2030-01-01T09:00:00Z',
  ))
    .option('--every-days <n>', 'with --type schedule: repeat the post every n days (1 to 365) at the same local '
      + 'time, until the series is deleted', wholeNumber)
    .option('--repeat-rule <rrule>', 'with --type schedule: repeat on an RFC 5545 rule, e.g. '
      + '"FREQ=WEEKLY;BYDAY=MO,TH", read in the channel\'s time zone; needs --repeat-until or --repeat-count')
    .option('--repeat-until <iso>', 'with --repeat-rule: no occurrence after this date')
    .option('--repeat-count <n>', 'with --repeat-rule: at most n occurrences, the first included', wholeNumber)
    .action(async (options: PostFlags & RepeatFlags) => {
      const body = { ...await postBody(options), ...repeatFields(options) };
      await requestAndPrint({ method: 'POST', path: '/posts', body });
    });

  withPostFlags(defineCommand(
    program, 'posts:validate', 'Check a post as posts:create would, without creating it; exits 1 when it has problems',
    'sps posts:validate --channel <channelId> --content "Hello" --settings \'{"visibility":"unlisted"}\'',
  ))
    .action(async (options: PostFlags) => {
      const answer = await requestAndPrint({ method: 'POST', path: '/posts/validate', body: await postBody(options) });
      const problems = validationAnswer.safeParse(answer.body).data?.problems ?? [];
      if (problems.length > 0) {
        throw new CliError(`posts:create would be refused: ${problems.length} problem(s), listed above`);
      }
    });

  defineCommand(program, 'posts:list', 'List posts whose publish date is in a range (root posts only)', 'sps posts:list --start 2030-01-01 --end 2030-02-01')
    .requiredOption('--start <iso>', 'start of the range (ISO 8601)')
    .requiredOption('--end <iso>', 'end of the range (ISO 8601)')
    .option('--customer <id>', 'only posts on channels of this customer')
    .action(async (options: { start: string; end: string; customer?: string }) => {
      await requestAndPrint({ method: 'GET', path: '/posts', query: { startDate: options.start, endDate: options.end, customer: options.customer } });
    });

  defineCommand(program, 'posts:get', 'Show a post with its thread parts and each part\'s state', 'sps posts:get <postId>')
    .argument('<id>', 'post id')
    .action(async (id: string) => {
      await requestAndPrint({ method: 'GET', path: `/posts/${segment(id)}` });
    });

  defineCommand(program, 'posts:delete', 'Delete a post (with its thread), or every post of a group with --group', 'sps posts:delete <postId>')
    .argument('[id]', 'post id')
    .option('--group <group>', 'delete every post of this group instead')
    .option('--series', 'a recurring post: delete every occurrence not yet published, ending the series')
    .option('--on-platform', 'also take the published parts off the platform where it can; posts:get shows how it went')
    .action(async (id: string | undefined, options: { group?: string; series?: boolean; onPlatform?: boolean }) => {
      if ((id === undefined) === (options.group === undefined)) throw new CliError('give either a post id or --group <group>');
      const path = options.group === undefined ? `/posts/${segment(id ?? '')}` : `/posts/group/${segment(options.group)}`;
      const query = {
        ...(options.series === true ? { series: 'true' } : {}),
        ...(options.onPlatform === true ? { onPlatform: 'true' } : {}),
      };
      await requestAndPrint({ method: 'DELETE', path, query: Object.keys(query).length === 0 ? undefined : query });
    });

  defineCommand(program, 'posts:status', 'Turn a post into a draft, or schedule it again', 'sps posts:status <postId> draft')
    .argument('<id>', 'post id')
    .addArgument(new Argument('<status>', 'the new status').choices(['draft', 'schedule']))
    .action(async (id: string, status: string) => {
      await requestAndPrint({ method: 'PUT', path: `/posts/${segment(id)}/status`, body: { status } });
    });

  defineCommand(
    program, 'posts:retry', 'Publish again only the parts of a failed post (or thread) not yet on the platform',
    'sps posts:retry <postId>',
  )
    .argument('<id>', 'post id (the first part\'s, as posts:get takes)')
    .action(async (id: string) => {
      await requestAndPrint({ method: 'POST', path: `/posts/${segment(id)}/retry` });
    });

  defineCommand(program, 'posts:missing', 'List recent content on the platform for a post whose release id is "missing"', 'sps posts:missing <postId>')
    .argument('<id>', 'post id')
    .action(async (id: string) => {
      await requestAndPrint({ method: 'GET', path: `/posts/${segment(id)}/missing` });
    });

  defineCommand(program, 'posts:connect', 'Link a post whose release id is "missing" to its item on the platform', 'sps posts:connect <postId> <releaseId>')
    .argument('<id>', 'post id')
    .argument('<releaseId>', 'the platform item\'s id, from posts:missing')
    .action(async (id: string, releaseId: string) => {
      await requestAndPrint({ method: 'PUT', path: `/posts/${segment(id)}/release-id`, body: { releaseId } });
    });
}
