import { z } from 'zod';
import { idParams } from '../common-schemas.ts';
import type { PublicApiDeps } from '../public-api-deps.ts';
import { defineRoute, type RouteDefinition } from '../route-definition.ts';
import type { AppContext } from '../../context.ts';
import {
  channelAnalytics,
  postAnalytics,
  type AnalyticsAnswer,
} from '../../../shared/domain/analytics/read-analytics.ts';

const analyticsSeries = z.array(
  z.object({
    label: z.string(),
    data: z.array(z.object({ total: z.number(), date: z.string() })),
    percentageChange: z.number(),
  }),
);
const daysBackQuery = z.object({
  date: z
    .string()
    .regex(/^\d{1,3}$/, 'date is a number of days back')
    .optional()
    .describe('Days back (default 7)'),
});

const describeFreshness =
  'Answered at once from stored daily readings. `X-Analytics-Fetched-At` says when the ' +
  'newest was read; when it is older than the freshness limit (or absent) a new reading is requested and ' +
  '`X-Analytics-Refreshing: true` is set. A platform without analytics answers `[]`.';

/** The freshness headers, then the body. */
function reply(ctx: AppContext, answer: AnalyticsAnswer): AnalyticsAnswer['body'] {
  if (answer.fetchedAt !== null) ctx.set('X-Analytics-Fetched-At', answer.fetchedAt.toISOString());
  if (answer.refreshing) ctx.set('X-Analytics-Refreshing', 'true');
  return answer.body;
}

/** The contract's analytics routes, answered from the daily readings the analytics workers store. */
export function analyticsRoutes(deps: PublicApiDeps): RouteDefinition[] {
  const days = (query: { date?: string | undefined }): number => Number(query.date ?? '7');
  return [
    defineRoute({
      method: 'get',
      path: '/analytics/post/:id',
      tag: 'Analytics',
      scope: 'analytics',
      status: 200,
      errors: ['not_found'],
      summary: 'Analytics of one post',
      description: `${describeFreshness} A post with no release id answers ` + '`{"missing": true}`.',
      params: idParams,
      query: daysBackQuery,
      response: z.union([analyticsSeries, z.object({ missing: z.literal(true) })]),
      handle: async ({ organization, params, query, ctx }) =>
        reply(ctx, await postAnalytics(deps, organization.id, params.id, days(query))),
    }),
    defineRoute({
      method: 'get',
      path: '/analytics/:id',
      tag: 'Analytics',
      scope: 'analytics',
      status: 200,
      errors: ['not_found'],
      summary: 'Analytics of one channel',
      description: describeFreshness,
      params: idParams,
      query: daysBackQuery,
      response: analyticsSeries,
      handle: async ({ organization, params, query, ctx }) =>
        reply(ctx, await channelAnalytics(deps, organization.id, params.id, days(query))),
    }),
  ];
}
