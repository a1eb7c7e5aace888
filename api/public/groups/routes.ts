import { z } from 'zod';
import { defineRoute, type RouteDefinition } from '../route-definition.ts';
import type { PublicApiDeps } from '../public-api-deps.ts';
import { listCustomers } from '../../../shared/domain/customers/customers.ts';

export function groupRoutes(deps: PublicApiDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: 'get', path: '/groups', tag: 'Integrations', scope: 'read', status: 200, errors: [],
      summary: 'List the organization\'s customers (channel groups)',
      response: z.array(z.object({ id: z.string(), name: z.string() })),
      handle: ({ organization }) => listCustomers(deps.db, organization.id),
    }),
  ];
}
