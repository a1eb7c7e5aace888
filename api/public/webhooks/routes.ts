import { z } from 'zod';
import { idParams } from '../common-schemas.ts';
import { defineRoute, type RouteDefinition } from '../route-definition.ts';
import type { PublicApiDeps } from '../public-api-deps.ts';
import { listDeliveries, resendDelivery } from '../../../shared/domain/webhooks/webhook-deliveries.ts';
import {
  deleteEndpoint, listEndpoints, maxEndpointsPerOrganization, registerEndpoint, rotateEndpointSecret,
} from '../../../shared/domain/webhooks/webhook-endpoints.ts';
import {
  createWebhookBody, deliveriesQuery, deliverySchema, webhookEndpointSchema, webhookWithSecretSchema,
} from './schema.ts';

const signing = 'Each delivery is a POST of the event as JSON with SPS-Event, SPS-Delivery and '
  + 'SPS-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" keyed with the secret>. '
  + 'Retried on a schedule of hours until the endpoint answers 2xx.';

export function webhookRoutes(deps: PublicApiDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: 'get', path: '/webhooks', tag: 'Webhooks', scope: 'webhooks', status: 200, errors: [],
      summary: 'List the organization\'s webhook endpoints (without their secrets)',
      response: z.object({ webhooks: z.array(webhookEndpointSchema) }),
      handle: async ({ organization }) => ({ webhooks: await listEndpoints(deps.db, organization.id) }),
    }),
    defineRoute({
      method: 'post', path: '/webhooks', tag: 'Webhooks',
      scope: 'webhooks', status: 201, errors: ['validation_failed', 'conflict'],
      summary: 'Register an endpoint for some events; the answer shows its signing secret, once',
      description: `${signing} At most ${maxEndpointsPerOrganization} endpoints per organization (409 beyond).`,
      body: createWebhookBody,
      response: webhookWithSecretSchema,
      handle: async ({ organization, body }) => {
        const { endpoint, secret } = await registerEndpoint(deps, organization.id, body);
        return { ...endpoint, secret };
      },
    }),
    defineRoute({
      method: 'delete', path: '/webhooks/:id', tag: 'Webhooks', scope: 'webhooks', status: 200, errors: ['not_found'],
      summary: 'Delete an endpoint with its delivery log; nothing more is sent to it',
      params: idParams,
      response: z.object({ id: z.string(), deleted: z.literal(true) }),
      handle: async ({ organization, params }) => {
        await deleteEndpoint(deps, organization.id, params.id);
        return { id: params.id, deleted: true as const };
      },
    }),
    defineRoute({
      method: 'post', path: '/webhooks/:id/secret', tag: 'Webhooks',
      scope: 'webhooks', status: 200, errors: ['not_found'],
      summary: 'Replace an endpoint\'s signing secret; the new one is shown once and signs every later attempt',
      params: idParams,
      response: webhookWithSecretSchema,
      handle: async ({ organization, params }) => {
        const { endpoint, secret } = await rotateEndpointSecret(deps, organization.id, params.id);
        return { ...endpoint, secret };
      },
    }),
    defineRoute({
      method: 'get', path: '/webhooks/:id/deliveries', tag: 'Webhooks', scope: 'webhooks', status: 200,
      errors: ['not_found', 'validation_failed'],
      summary: 'An endpoint\'s delivery log, newest first: each attempt with status code and duration',
      params: idParams,
      query: deliveriesQuery,
      response: z.object({ deliveries: z.array(deliverySchema) }),
      handle: async ({ organization, params, query }) => ({
        deliveries: await listDeliveries(deps.db, organization.id, params.id, query.limit),
      }),
    }),
    defineRoute({
      method: 'post', path: '/webhooks/deliveries/:id/resend', tag: 'Webhooks',
      scope: 'webhooks', status: 202, errors: ['not_found'],
      summary: 'Send a delivery\'s body again, as a new delivery (the log keeps both)',
      params: idParams,
      response: deliverySchema,
      handle: ({ organization, params, ctx }) => resendDelivery(
        { db: deps.db, deliveryJobs: deps.webhookDeliveries, logger: ctx.state.log },
        organization.id, params.id, deps.now(),
      ),
    }),
  ];
}
