import { allPlatformModules, allPlatforms } from '../../../shared/platforms/platforms.ts';
import { z } from 'zod';
import { boundedJsonObject } from '../common-schemas.ts';
import { postingScheduleSchema } from '../../../shared/domain/channels/posting-schedule.ts';

/** `group` is the name Postiz clients send for the same filter (CONTRACT: GET /integrations). */
export const customerFilterQuery = z.object({
  customer: z.string().min(1).max(100).optional().describe('Only channels of this customer (see GET /groups)'),
  group: z.string().min(1).max(100).optional()
    .describe('The same filter as customer, under the name Postiz clients use'),
}).refine((query) => query.customer === undefined || query.group === undefined || query.customer === query.group, {
  path: ['group'], message: 'customer and group are the same filter: give one of them, or the same value in both',
});

export const integrationSchema = z.object({
  id: z.string(),
  name: z.string(),
  identifier: z.string().describe('Platform identifier, e.g. mastodon'),
  picture: z.string().nullable(),
  disabled: z.boolean(),
  refreshNeeded: z.boolean().describe('The platform rejected the credentials: reconnect the channel'),
  profile: z.string().nullable(),
  customer: z.object({ id: z.string(), name: z.string() }).optional(),
});

export const integrationSettingsResponse = z.object({
  output: z.object({
    rules: z.string(),
    maxLength: z.number().int(),
    settings: z.union([z.record(z.string(), z.unknown()), z.literal('No additional settings required')])
      .describe('JSON Schema of the post settings'),
    tools: z.array(z.object({
      methodName: z.string(),
      description: z.string(),
      dataSchema: z.array(z.object({ key: z.string(), type: z.string(), description: z.string() })),
    })),
    removal: z.union([
      z.object({
        supported: z.literal(true), method: z.enum(['delete', 'unpublish', 'trash']), note: z.string().optional(),
      }),
      z.object({ supported: z.literal(false), why: z.enum(['cannot', 'not_built']), reason: z.string() }),
    ]).describe('What DELETE /posts/:id?onPlatform=true does on this platform: how it removes, or why it cannot'),
  }),
});

export const triggerBody = z.object({
  methodName: z.string().min(1).max(100).describe('One of the tools listed by integration-settings'),
  // Queued as a job for the platform worker: bounded like post settings.
  data: boundedJsonObject({ maxDepth: 16, maxBytes: 64 * 1024 }).optional()
    .describe('The tool\'s input fields; at most 16 levels deep and 64 KB'),
});

export const deletedResponse = z.object({ id: z.string(), deleted: z.literal(true) });

/** A string rather than an enum, so an unknown platform is 404 (not found) rather than 400. */
export const providerParams = z.object({
  provider: z.string().min(1).max(50)
    .describe(`Platform identifier, one of: ${allPlatforms().map((platform) => platform.identifier).join(', ')}`),
});

const refreshChannel = z.string().min(1).max(100);
const customerName = z.string().min(1).max(100);

export const connectQuery = z.object({
  refresh: refreshChannel.optional()
    .describe('Id of a channel to reconnect in place: it keeps its id, posts and settings'),
  instance: z.string().min(1).max(2000).optional()
    .describe('The user\'s server, for platforms that run on many (Mastodon), e.g. https://mastodon.social'),
  customer: customerName.optional().describe('Customer the new channel belongs to; created when new'),
});

/** Platforms a client connects with POST /integrations/:id, each with its fields, for the reference. */
const credentialsPlatforms = allPlatformModules().flatMap((module) => {
  const { connect, definition } = module;
  if (connect.kind !== 'credentials') return [];
  const fields = connect.fields.map((field) => {
    const optional = field.optional === true ? ', optional' : '';
    return `\`${field.key}\` (${field.label}${optional})`;
  });
  return [{ identifier: definition.identifier, line: `- ${definition.identifier}: ${fields.join(', ')}` }];
});

/**
 * The segment after /integrations/ is named `id` as on DELETE /integrations/:id: OpenAPI takes
 * `/integrations/{id}` and `/integrations/{provider}` for one path, so they share the name.
 */
export const credentialsPlatformParams = z.object({
  id: z.string().min(1).max(50).describe(`Identifier of a platform connected with credentials: ${
    credentialsPlatforms.map((one) => one.identifier).join(', ')}`),
});

/** The fields themselves are checked against the platform's own list (credentialValuesSchema). */
export const credentialsConnectBody = z.looseObject({
  refresh: refreshChannel.optional()
    .describe('Id of a channel of this platform to reconnect in place: it keeps its id, posts and settings'),
  customer: customerName.optional().describe('Customer the new channel belongs to; created when new'),
}).describe('The platform\'s credential fields (see the description) as strings, with refresh and customer');

export const credentialsConnectDescription = `${[
  'For an API client that holds the credentials itself; otherwise GET /social/:provider answers a link to a form',
  'for the account\'s owner. The values are checked with the platform and the profile read before anything is',
  'saved, as the dashboard\'s form does. Answers 201 with the new channel, or 200 with the channel when the',
  'organization already had this account\'s channel (or with refresh): reconnected in place. The platform\'s',
  'refusal is 422 connect_refused with its own words; missing or invalid fields are 400 with one detail per',
  'field. The fields of each platform:',
].join(' ')}\n\n${credentialsPlatforms.map((one) => one.line).join('\n')}`;

/** A channel's posting schedule: PUT takes it whole, GET and PUT answer it as stored. */
export const postingScheduleBody = postingScheduleSchema.describe(
  'The channel\'s time zone and weekly posting slots (wall-clock times there); replaces the whole schedule',
);

export const postingScheduleResponse = z.object({
  timeZone: z.string().describe('IANA time zone name'),
  postingSlots: z.array(z.object({ weekday: z.number().int(), time: z.string() }))
    .describe('Weekly slots, by weekday (1 = Monday) then time'),
});

export const postingScheduleDescription = [
  'Slots are local wall-clock times in the time zone: a 09:00 slot stays 09:00 across daylight-saving changes.',
  'A slot in an hour the clocks skip is taken at the moment of the change (02:30 on a spring-forward day becomes',
  '03:00); a slot in an hour the clocks repeat is taken at its first occurrence. GET /find-slot/:id and POST /posts',
  'with type "queue" use the schedule. A channel that never had one is read as its former daily times in UTC.',
].join(' ');
