import { z } from 'zod';
import { idParams } from '../common-schemas.ts';
import { mediaSchema } from '../uploads/schema.ts';
import { defineRoute, type RouteDefinition } from '../route-definition.ts';
import { DomainError } from '../../../shared/errors.ts';

/**
 * Routes of the contract whose features come with later work (analytics, video generation). They are served, authenticated and rate limited like the rest,
 * and answer 501 `not_implemented` saying what is missing.
 */
function notYet(feature: string): () => Promise<never> {
  return () => Promise.reject(new DomainError('not_implemented', `${feature} is not available on this server yet`));
}

const analyticsResponse = z.array(z.object({ label: z.string(), data: z.array(z.object({ total: z.number(), date: z.string() })), percentageChange: z.number() }));
const daysBackQuery = z.object({ date: z.string().regex(/^\d{1,3}$/, 'date is a number of days back').optional().describe('Days back (default 7)') });

export function notYetAvailableRoutes(): RouteDefinition[] {
  return [
    defineRoute({
      method: 'get', path: '/analytics/post/:id', tag: 'Analytics', status: 200, errors: ['not_implemented'],
      summary: 'Analytics of one post', params: idParams, query: daysBackQuery, response: analyticsResponse, handle: notYet('Post analytics'),
    }),
    defineRoute({
      method: 'get', path: '/analytics/:id', tag: 'Analytics', status: 200, errors: ['not_implemented'],
      summary: 'Analytics of one channel', params: idParams, query: daysBackQuery, response: analyticsResponse, handle: notYet('Channel analytics'),
    }),
    defineRoute({
      method: 'post', path: '/generate-video', tag: 'Video Generation', status: 201, errors: ['not_implemented'],
      idempotent: true,
      summary: 'Generate a video',
      body: z.object({ type: z.string().min(1).max(100), output: z.enum(['vertical', 'horizontal']), customParams: z.record(z.string(), z.unknown()).optional() }),
      response: mediaSchema, handle: notYet('Video generation'),
    }),
  ];
}
