import { z } from 'zod';
import { idParams } from '../common-schemas.ts';
import { defineRoute, type RouteDefinition } from '../route-definition.ts';
import { DomainError } from '../../../shared/errors.ts';

/**
 * Routes of the contract whose features come with later work (uploads: the media pipeline;
 * analytics; video generation). They are served, authenticated and rate limited like the rest,
 * and answer 501 `not_implemented` saying what is missing.
 */
function notYet(feature: string): () => Promise<never> {
  return () => Promise.reject(new DomainError('not_implemented', `${feature} is not available on this server yet`));
}

const mediaSchema = z.object({ id: z.string(), path: z.string(), name: z.string(), mimeType: z.string() }).describe('Media record');
const analyticsResponse = z.array(z.object({ label: z.string(), data: z.array(z.object({ total: z.number(), date: z.string() })), percentageChange: z.number() }));
const daysBackQuery = z.object({ date: z.string().regex(/^\d{1,3}$/, 'date is a number of days back').optional().describe('Days back (default 7)') });

export function notYetAvailableRoutes(): RouteDefinition[] {
  return [
    defineRoute({
      method: 'post', path: '/upload', tag: 'Uploads', status: 201, errors: ['not_implemented'],
      summary: 'Upload a media file (multipart, field "file")', response: mediaSchema, handle: notYet('Uploading media'),
    }),
    defineRoute({
      method: 'post', path: '/upload-from-url', tag: 'Uploads', status: 201, errors: ['not_implemented'],
      summary: 'Have the service fetch a public https URL into the media library',
      body: z.object({ url: z.url() }), response: mediaSchema, handle: notYet('Uploading media from a URL'),
    }),
    defineRoute({
      method: 'get', path: '/media/:id', tag: 'Uploads', status: 200, errors: ['not_implemented'],
      summary: 'A media record with its processing status', params: idParams, response: mediaSchema, handle: notYet('The media library'),
    }),
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
      summary: 'Generate a video',
      body: z.object({ type: z.string().min(1).max(100), output: z.enum(['vertical', 'horizontal']), customParams: z.record(z.string(), z.unknown()).optional() }),
      response: mediaSchema, handle: notYet('Video generation'),
    }),
  ];
}
