import { Types } from 'mongoose';
import { defineRoute, type RouteDefinition } from '../route-definition.ts';
import type { PublicApiDeps } from '../public-api-deps.ts';
import { eventSettleMs, listEvents } from '../../../shared/domain/events/event-feed.ts';
import { listEventsQuery, listEventsResponse } from './schema.ts';

export function eventRoutes(deps: PublicApiDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: 'get', path: '/events', tag: 'Webhooks',
      scope: 'read', status: 200, errors: ['validation_failed'],
      summary: 'The organization\'s events after a cursor, oldest first: the webhook events, for clients that poll',
      description: 'Every event SPS sends to webhook endpoints is also kept here, whether or not an endpoint '
        + 'subscribed to it, for EVENT_RETENTION_DAYS. Read with no `after` to start at the oldest kept, then pass '
        + 'the answer\'s `cursor` as `after`. Events appear '
        + `${eventSettleMs / 1000} to ${eventSettleMs / 1000 + 1} seconds after they happen, so that none `
        + 'written at the same moment by another SPS process lands behind a cursor already handed out. '
        + 'An event can be told twice (a webhook retried, or a publish run again): `id` is the same each time.',
      query: listEventsQuery,
      response: listEventsResponse,
      handle: ({ organization, query }) => listEvents(deps.db, organization.id, {
        after: query.after === undefined ? null : new Types.ObjectId(query.after),
        limit: query.limit,
      }, deps.now()),
    }),
  ];
}
