import { z } from 'zod';
import { idParams } from '../common-schemas.ts';
import { defineRoute, type RouteDefinition } from '../route-definition.ts';
import type { PublicApiDeps } from '../public-api-deps.ts';
import { channelSettingsView } from '../../../shared/domain/channels/channel-settings.ts';
import { deleteChannel, findOwnedChannel, listChannels } from '../../../shared/domain/channels/channels.ts';
import { findFreeSlot } from '../../../shared/domain/channels/find-slot.ts';
import { channelSchedule, setChannelSchedule } from '../../../shared/domain/channels/channel-schedule.ts';
import { DomainError } from '../../../shared/errors.ts';
import { publishingProviders } from '../../../shared/platforms/platforms.ts';
import { findPlatform } from '../../../shared/platforms/platforms.ts';
import type { PlatformDefinition } from '../../../shared/platforms/kit/platform-definition.ts';
import { connectModule, startConnect } from '../../../shared/domain/channels/connect-channel.ts';
import {
  connectWithCredentials, credentialsPlatform,
} from '../../../shared/domain/channels/connect-with-credentials.ts';
import { startCredentialsLink } from '../../../shared/domain/channels/credential-connect-links.ts';
import { Reply } from '../route-definition.ts';
import { readChannelHealth } from '../../../shared/domain/channels/channel-health-reads.ts';
import { healthInWords } from '../../../shared/domain/channels/channel-health.ts';
import { channelHealthDescription, channelHealthResponse, presentChannelHealth } from './health-schema.ts';
import {
  connectQuery, credentialsConnectBody, credentialsConnectDescription, credentialsPlatformParams, customerFilterQuery,
  deletedResponse, integrationSchema, integrationSettingsResponse, postingScheduleBody, postingScheduleDescription,
  postingScheduleResponse, providerParams, triggerBody,
} from './schema.ts';

function platformOf(provider: string): PlatformDefinition {
  const platform = findPlatform(provider);
  if (platform === undefined)
    throw new DomainError('not_found', `platform ${JSON.stringify(provider)} is not supported`);
  return platform;
}

export function integrationRoutes(deps: PublicApiDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: 'get', path: '/integrations', tag: 'Integrations', scope: 'integrations', status: 200, errors: [],
      summary: 'List connected channels, all or those of one customer',
      query: customerFilterQuery,
      response: z.array(integrationSchema),
      handle: ({ organization, query }) =>
        listChannels(deps.db, organization.id, { customer: query.customer ?? query.group }),
    }),
    defineRoute({
      method: 'delete', path: '/integrations/:id', tag: 'Integrations',
      scope: 'integrations', status: 200, errors: ['not_found'],
      summary: 'Disconnect a channel; its unpublished posts are deleted and their jobs cancelled',
      params: idParams,
      response: deletedResponse,
      handle: ({ organization, params }) => deleteChannel(deps, organization.id, params.id),
    }),
    defineRoute({
      method: 'get', path: '/integration-settings/:id', tag: 'Integrations',
      scope: 'integrations', status: 200, errors: ['not_found'],
      summary: 'Rules, text limit, post settings (JSON Schema) and tools of a channel\'s platform',
      params: idParams,
      response: integrationSettingsResponse,
      handle: async ({ organization, params }) => {
        const channel = await findOwnedChannel(deps.db, organization.id, params.id);
        return { output: channelSettingsView(platformOf(channel.provider)) };
      },
    }),
    defineRoute({
      method: 'post', path: '/integration-trigger/:id', tag: 'Integrations', scope: 'posts', status: 200,
      errors: [
        'not_found', 'tool_not_found', 'validation_failed', 'not_implemented', 'platform_error', 'platform_timeout',
      ],
      summary: 'Run one of the platform\'s tools for this channel (boards, flairs, channels...)',
      params: idParams,
      body: triggerBody,
      response: z.object({ output: z.unknown() }),
      handle: async ({ organization, params, body }) => {
        const channel = await findOwnedChannel(deps.db, organization.id, params.id);
        const platform = platformOf(channel.provider);
        if (!platform.tools.some((tool) => tool.methodName === body.methodName)) {
          const see = `see GET /integration-settings/${params.id}`;
          throw new DomainError('tool_not_found', `${platform.displayName} has no tool "${body.methodName}"; ${see}`);
        }
        if (!publishingProviders.has(channel.provider)) {
          const why = 'its platform adapter has not been built';
          throw new DomainError('not_implemented', `${platform.displayName} tools are not available yet: ${why}`);
        }
        const output = await deps.platformCaller.call({
          kind: 'tool',
          organizationId: organization.id,
          channelId: channel._id.toString(),
          methodName: body.methodName,
          data: body.data ?? {},
        });
        return { output };
      },
    }),
    defineRoute({
      method: 'get', path: '/integrations/:id/health', tag: 'Integrations', scope: 'integrations', status: 200,
      errors: ['not_found'],
      summary: 'A channel\'s health: token, scopes, last publication, rate limit, and what to do about them',
      description: channelHealthDescription,
      params: idParams,
      response: channelHealthResponse,
      handle: async ({ organization, params }) => {
        const health = await readChannelHealth(deps, organization.id, params.id);
        return presentChannelHealth(health, healthInWords(health));
      },
    }),
    defineRoute({
      method: 'get', path: '/integrations/:id/schedule', tag: 'Integrations',
      scope: 'integrations', status: 200, errors: ['not_found'],
      summary: 'A channel\'s time zone and weekly posting slots',
      description: postingScheduleDescription,
      params: idParams,
      response: postingScheduleResponse,
      handle: ({ organization, params }) => channelSchedule(deps.db, organization.id, params.id),
    }),
    defineRoute({
      method: 'put', path: '/integrations/:id/schedule', tag: 'Integrations', scope: 'integrations', status: 200,
      errors: ['not_found', 'validation_failed', 'unknown_time_zone'],
      summary: 'Set a channel\'s time zone and weekly posting slots',
      description: `${postingScheduleDescription} A malformed body is 400 validation_failed naming the field; a `
        + 'well-formed zone the IANA database does not know is 422 unknown_time_zone.',
      params: idParams,
      body: postingScheduleBody,
      response: postingScheduleResponse,
      handle: ({ organization, params, body }) => setChannelSchedule(deps.db, organization.id, params.id, body),
    }),
    defineRoute({
      method: 'get', path: '/find-slot/:id', tag: 'Integrations',
      scope: 'posts', status: 200, errors: ['not_found', 'conflict'],
      summary: 'Next free posting slot of a channel, from its schedule in its time zone (searches 90 days ahead)',
      params: idParams,
      response: z.object({ date: z.iso.datetime() }),
      handle: async ({ organization, params }) => {
        const slot = await findFreeSlot(deps.db, organization.id, params.id, deps.now());
        return { date: slot.toISOString() };
      },
    }),
    defineRoute({
      method: 'get', path: '/is-connected', tag: 'Integrations', scope: 'any', status: 200, errors: [],
      summary: 'Check that the credential works',
      response: z.object({ connected: z.literal(true) }),
      handle: () => Promise.resolve({ connected: true as const }),
    }),
    defineRoute({
      method: 'get', path: '/social/:provider', tag: 'Integrations', scope: 'integrations', status: 200,
      errors: [
        'not_found', 'validation_failed', 'platform_not_configured', 'connect_refused', 'platform_error',
        'account_mismatch',
      ],
      summary: 'Where to send a user to connect (or, with refresh, reconnect) a channel of this platform: '
        + 'the platform\'s authorization URL or, for platforms that sign in with credentials, a link to the '
        + 'credentials form for this organization; either is single use and valid 10 minutes',
      params: providerParams,
      query: connectQuery,
      response: z.object({ url: z.url() }),
      handle: ({ organization, params, query }) => {
        const request = {
          organizationId: organization.id,
          provider: params.provider,
          refreshChannelId: query.refresh ?? null,
          customer: query.customer ?? null,
        };
        if (connectModule(params.provider).connect.kind === 'credentials') return startCredentialsLink(deps, request);
        return startConnect(deps, { ...request, serverUrl: query.instance ?? null });
      },
    }),
    defineRoute({
      method: 'post', path: '/integrations/:id', tag: 'Integrations', scope: 'integrations', status: 201,
      errors: ['not_found', 'validation_failed', 'connect_refused', 'account_mismatch', 'platform_error'],
      summary: 'Connect (or, with refresh, reconnect) a channel of a platform that signs in with credentials',
      description: credentialsConnectDescription,
      params: credentialsPlatformParams,
      body: credentialsConnectBody,
      response: integrationSchema,
      handle: async ({ organization, params, body }) => {
        const { module, connect } = credentialsPlatform(params.id);
        const { identifier } = module.definition;
        const { refresh, customer, ...values } = body;
        const connected = await connectWithCredentials(deps, connect, deps.platforms.context(identifier), {
          organizationId: organization.id,
          provider: identifier,
          values,
          refreshChannelId: refresh ?? null,
          customer: customer ?? null,
        });
        // The list's own presenter: the channel as GET /integrations shows it (customer, disabled).
        const channel = (await listChannels(deps.db, organization.id)).find((listed) => listed.id === connected.id);
        if (channel === undefined) throw new DomainError('not_found', `channel ${connected.id} was deleted meanwhile`);
        return new Reply(connected.created ? 201 : 200, channel);
      },
    }),
  ];
}
