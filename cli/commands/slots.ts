import { InvalidArgumentError, type Command } from 'commander';
import { segment } from '../api-client.ts';
import { requestAndPrint } from '../api-command.ts';
import { defineCommand } from '../command-definition.ts';

const weekdays = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;

interface PostingSlot { weekday: number; time: string }

/**
 * One weekly slot as a person writes it: `mon@09:00` or `1@09:00` (1 = Monday ... 7 = Sunday).
 * The time's range is the server's to check (400 naming the slot); the shape is checked here.
 */
function slotList(value: string, previous: PostingSlot[] | undefined): PostingSlot[] {
  const match = /^([a-z]{3}|[1-7])@(\d{2}:\d{2})$/i.exec(value.trim());
  const day = match?.[1]?.toLowerCase() ?? '';
  const weekday = /^[1-7]$/.test(day) ? Number(day) : weekdays.indexOf(day as (typeof weekdays)[number]) + 1;
  if (match === null || weekday === 0) {
    throw new InvalidArgumentError('expected a weekday and a local time, like mon@09:00 or 1@09:00');
  }
  return [...(previous ?? []), { weekday, time: match[2] ?? '' }];
}

export function registerSlotCommands(program: Command): void {
  defineCommand(
    program, 'slots:get', 'Show a channel\'s time zone and weekly posting slots', 'sps slots:get <channelId>',
  )
    .argument('<id>', 'channel id (from integrations:list)')
    .action(async (id: string) => {
      await requestAndPrint({ method: 'GET', path: `/integrations/${segment(id)}/schedule` });
    });
  defineCommand(
    program, 'slots:set', 'Replace a channel\'s time zone and weekly posting slots (local wall-clock times)',
    'sps slots:set <channelId> --time-zone Europe/Berlin --slot mon@09:00 --slot fri@17:30',
  )
    .argument('<id>', 'channel id (from integrations:list)')
    .requiredOption('--time-zone <zone>', 'an IANA time zone name, such as Europe/Berlin or UTC')
    .option('--slot <day@time>', 'a weekly slot, mon@09:00 or 1@09:00 (repeat; none leaves the queue empty)', slotList)
    .action(async (id: string, options: { timeZone: string; slot?: PostingSlot[] }) => {
      await requestAndPrint({
        method: 'PUT',
        path: `/integrations/${segment(id)}/schedule`,
        body: { timeZone: options.timeZone, postingSlots: options.slot ?? [] },
      });
    });
  defineCommand(
    program, 'slots:next', 'Show the channel\'s next free posting slot (what posts:create --type queue takes)',
    'sps slots:next <channelId>',
  )
    .argument('<id>', 'channel id (from integrations:list)')
    .action(async (id: string) => {
      await requestAndPrint({ method: 'GET', path: `/find-slot/${segment(id)}` });
    });
}
