import { z } from 'zod';
import { idParams } from '../common-schemas.ts';
import { defineRoute, type RouteDefinition } from '../route-definition.ts';
import type { PublicApiDeps } from '../public-api-deps.ts';
import { channelSettingsView } from '../../../shared/domain/channels/channel-settings.ts';
import { deleteChannel, findOwnedChannel, listChannels } from '../../../shared/domain/channels/channels.ts';
import { findFreeSlot } from '../../../shared/domain/channels/find-slot.ts';
import { DomainError } from '../../../shared/errors.ts';
import { publishingProviders } from '../../../shared/platforms/platforms.ts';
import { findPlatform } from '../../../shared/platforms/platforms.ts';
import type { PlatformDefinition } from '../../../shared/platforms/kit/platform-definition.ts';
import { startConnect } from '../../../shared/domain/channels/connect-channel.ts';
import {
  connectQuery, customerFilterQuery, deletedResponse, integrationSchema, integrationSettingsResponse, providerParams,
  triggerBody,
} from './schema.ts';

function platformOf(provider: string): PlatformDefinition {
  const platform = findPlatform(provider);
  if (platform === undefined) throw new DomainError('not_found', `platform ${JSON.stringify(provider)} is not supported`);
  return platform;
}

export function integrationRoutes(deps: PublicApiDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: 'get', path: '/integrations', tag: 'Integrations', status: 200, errors: [],
      summary: 'List connected channels, all or those of one customer',
      query: customerFilterQuery,
      response: z.array(integrationSchema),
      handle: ({ organization, query }) =>
        listChannels(deps.db, organization.id, { customer: query.customer ?? query.group }),
    }),
    defineRoute({
      method: 'delete', path: '/integrations/:id', tag: 'Integrations', status: 200, errors: ['not_found'],
      summary: 'Disconnect a channel; its unpublished posts are deleted and their jobs cancelled',
      params: idParams,
      response: deletedResponse,
      handle: ({ organization, params }) => deleteChannel(deps, organization.id, params.id),
    }),
    defineRoute({
      method: 'get', path: '/integration-settings/:id', tag: 'Integrations', status: 200, errors: ['not_found'],
      summary: 'Rules, text limit, post settings (JSON Schema) and tools of a channel\'s platform',
      params: idParams,
      response: integrationSettingsResponse,
      handle: async ({ organization, params }) => {
        const channel = await findOwnedChannel(deps.db, organization.id, params.id);
        return { output: channelSettingsView(platformOf(channel.provider)) };
      },
    }),
    defineRoute({
      method: 'post', path: '/integration-trigger/:id', tag: 'Integrations', status: 200,
      errors: ['not_found', 'tool_not_found', 'validation_failed', 'not_implemented', 'platform_error', 'platform_timeout'],
      summary: 'Run one of the platform\'s tools for this channel (boards, flairs, channels...)',
      params: idParams,
      body: triggerBody,
      response: z.object({ output: z.unknown() }),
      handle: async ({ organization, params, body }) => {
        const channel = await findOwnedChannel(deps.db, organization.id, params.id);
        const platform = platformOf(channel.provider);
        if (!platform.tools.some((tool) => tool.methodName === body.methodName)) {
          throw new DomainError('tool_not_found', `${platform.displayName} has no tool "${body.methodName}"; see GET /integration-settings/${params.id}`);
        }
        if (!publishingProviders.has(channel.provider)) {
          throw new DomainError('not_implemented', `${platform.displayName} tools are not available yet: its platform adapter has not been built`);
        }
        const output = await deps.platformCaller.call({ kind: 'tool', organizationId: organization.id, channelId: channel._id.toString(), methodName: body.methodName, data: body.data ?? {} });
        return { output };
      },
    }),
    defineRoute({
      method: 'get', path: '/find-slot/:id', tag: 'Integrations', status: 200, errors: ['not_found', 'conflict'],
      summary: 'Next free posting time of a channel (searches 90 days ahead)',
      params: idParams,
      response: z.object({ date: z.iso.datetime() }),
      handle: async ({ organization, params }) => ({ date: (await findFreeSlot(deps.db, organization.id, params.id, deps.now())).toISOString() }),
    }),
    defineRoute({
      method: 'get', path: '/is-connected', tag: 'Integrations', status: 200, errors: [],
      summary: 'Check that the credential works',
      response: z.object({ connected: z.literal(true) }),
      handle: () => Promise.resolve({ connected: true as const }),
    }),
    defineRoute({
      method: 'get', path: '/social/:provider', tag: 'Integrations', status: 200,
      errors: [
        'not_found', 'validation_failed', 'platform_not_configured', 'connect_refused', 'platform_error',
      ],
      summary: 'Where to send a user to connect (or, with refresh, reconnect) a channel of this platform: '
        + 'the platform\'s authorization URL (single use, 10 minutes) or the dashboard\'s credentials form',
      params: providerParams,
      query: connectQuery,
      response: z.object({ url: z.url() }),
      handle: ({ organization, params, query }) => startConnect(deps, {
        organizationId: organization.id,
        provider: params.provider,
        refreshChannelId: query.refresh ?? null,
        serverUrl: query.instance ?? null,
        customer: query.customer ?? null,
      }),
    }),
  ];
}
