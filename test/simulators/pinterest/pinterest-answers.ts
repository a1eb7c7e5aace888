import type { SimulatedAnswer } from '../kit/simulator-server.ts';

/**
 * Pinterest's answers as the simulator gives them: errors as `{code, message}` (the spec's
 * `Error`), and the scopes each route needs (the spec's security per operation).
 * design-blogging-business.md 1.5: the codes and messages there are Pinterest's; where the facts
 * name no words (a refused image, a carousel of mixed sizes) the simulator's are stand-ins.
 */

export function pinterestError(status: number, code: number, message: string): SimulatedAnswer {
  return { status, body: { code, message } };
}

export const authenticationFailed = pinterestError(401, 2, 'Authentication failed.');
export const invalidParameters = pinterestError(400, 1, 'Invalid parameters.');
export const notFound = pinterestError(404, 404, 'Not found.');

export function invalidRequest(message: string): SimulatedAnswer {
  return pinterestError(400, 1, message);
}

export function insufficientScope(scope: string): SimulatedAnswer {
  return pinterestError(403, 3, `Your application consumer type does not have sufficient permissions: ${scope}.`);
}

/**
 * A 429 for a window that reopens in `seconds`. The spec names no rate-limit headers; the
 * simulator sends X-RateLimit-Limit / -Remaining / -Reset (seconds until the window reopens),
 * the shape SPS reads when there is no Retry-After.
 */
export function rateLimited(seconds: number, limit = 100): SimulatedAnswer {
  return {
    ...pinterestError(429, 8, 'This request exceeded a rate limit. This can be caused by too many requests.'),
    headers: {
      'x-ratelimit-limit': String(limit),
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': String(seconds),
    },
  };
}

/** A route named as tests name it: `POST /v5/pins`, `GET /v5/media/:id`, `POST upload`. */
export function routeOf(method: string, path: string): string {
  const named = path
    .replace(/^\/v5\/media\/[^/]+$/, '/v5/media/:id')
    .replace(/^\/v5\/boards\/[^/]+\/pins$/, '/v5/boards/:id/pins')
    .replace(/^\/v5\/boards\/[^/]+\/sections$/, '/v5/boards/:id/sections')
    .replace(/^\/v5\/pins\/[^/]+\/analytics$/, '/v5/pins/:id/analytics')
    .replace(/^\/v5\/pins\/[^/]+$/, '/v5/pins/:id');
  return `${method} ${named}`;
}

/** Scopes of each API route (the spec lists all of them as needed together). */
export const routeScopes: Readonly<Record<string, readonly string[]>> = {
  'GET /v5/user_account': ['user_accounts:read'],
  'GET /v5/user_account/analytics': ['user_accounts:read'],
  'GET /v5/boards': ['boards:read'],
  'POST /v5/boards': ['boards:read', 'boards:write'],
  'GET /v5/boards/:id/pins': ['boards:read', 'pins:read'],
  'GET /v5/boards/:id/sections': ['boards:read'],
  'POST /v5/pins': ['boards:read', 'boards:write', 'pins:read', 'pins:write'],
  'GET /v5/pins/:id': ['boards:read', 'pins:read'],
  'DELETE /v5/pins/:id': ['boards:read', 'boards:write', 'pins:read', 'pins:write'],
  'GET /v5/pins/:id/analytics': ['boards:read', 'pins:read'],
  'POST /v5/media': ['pins:write'],
  'GET /v5/media/:id': ['pins:read'],
};
