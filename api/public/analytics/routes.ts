import { z } from 'zod';
import { idParams } from '../common-schemas.ts';
import { defineRoute, type RouteDefinition } from '../route-definition.ts';
import { DomainError } from '../../../shared/errors.ts';

const notYet = (feature: string) => (): Promise<never> =>
  Promise.reject(new DomainError('not_implemented', `${feature} is not available on this server yet`));

const analyticsResponse = z.array(z.object({
  label: z.string(), data: z.array(z.object({ total: z.number(), date: z.string() })), percentageChange: z.number(),
}));
const daysBackQuery = z.object({
  date: z.string().regex(/^\d{1,3}$/, 'date is a number of days back').optional().describe('Days back (default 7)'),
});

/** The contract's analytics routes. */
export function analyticsRoutes(): RouteDefinition[] {
  return [
    defineRoute({
      method: 'get', path: '/analytics/post/:id', tag: 'Analytics', status: 200, errors: ['not_implemented'],
      summary: 'Analytics of one post', params: idParams, query: daysBackQuery, response: analyticsResponse,
      handle: notYet('Post analytics'),
    }),
    defineRoute({
      method: 'get', path: '/analytics/:id', tag: 'Analytics', status: 200, errors: ['not_implemented'],
      summary: 'Analytics of one channel', params: idParams, query: daysBackQuery, response: analyticsResponse,
      handle: notYet('Channel analytics'),
    }),
  ];
}
