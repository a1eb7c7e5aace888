import { z } from 'zod';
import { defineRoute, type RouteDefinition } from '../route-definition.ts';
import type { PublicApiDeps } from '../public-api-deps.ts';
import { listNotifications } from '../../../shared/domain/notifications/notifications.ts';
import { listNotificationsQuery } from './schema.ts';

const notificationsResponse = z.object({
  notifications: z.array(z.object({ id: z.string(), content: z.string(), link: z.string().nullable(), createdAt: z.iso.datetime() })).describe('Most recent first'),
  total: z.number().int(),
  page: z.number().int().describe('0-indexed'),
  limit: z.literal(100),
  hasMore: z.boolean(),
});

export function notificationRoutes(deps: PublicApiDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: 'get', path: '/notifications', tag: 'Notifications',
      scope: 'read', status: 200, errors: ['validation_failed'],
      summary: 'List the organization\'s notifications, newest first, 100 a page',
      query: listNotificationsQuery,
      response: notificationsResponse,
      handle: ({ organization, query }) => listNotifications(deps.db, organization.id, query.page),
    }),
  ];
}
