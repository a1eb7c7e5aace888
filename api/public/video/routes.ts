import { z } from 'zod';
import { mediaSchema } from '../uploads/schema.ts';
import { defineRoute, type RouteDefinition } from '../route-definition.ts';
import { DomainError } from '../../../shared/errors.ts';

/** The contract's video generation routes. */
export function videoRoutes(): RouteDefinition[] {
  return [
    defineRoute({
      method: 'post', path: '/generate-video', tag: 'Video Generation', status: 201, errors: ['not_implemented'],
      idempotent: true,
      summary: 'Generate a video',
      body: z.object({
        type: z.string().min(1).max(100),
        output: z.enum(['vertical', 'horizontal']),
        customParams: z.record(z.string(), z.unknown()).optional(),
      }),
      response: mediaSchema,
      handle: () => Promise.reject(
        new DomainError('not_implemented', 'Video generation is not available on this server yet'),
      ),
    }),
  ];
}
