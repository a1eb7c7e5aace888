/**
 * What a credential may do on the public API. Every route names one RouteScope in its definition
 * (api/public/route-definition.ts) and api/middleware/authorize.ts enforces it:
 * - `read` grants every GET, whatever the route's own scope;
 * - a route's domain scope (`posts`, `uploads`, `analytics`, `webhooks`, `integrations`) grants
 *   that route, reads and writes alike;
 * - `any` routes take any valid credential (GET /is-connected: "does my key work?");
 * - `full` routes need every scope (managing API keys: a narrower key must not mint a wider one).
 */
export const apiScopes = ['read', 'posts', 'uploads', 'analytics', 'webhooks', 'integrations'] as const;
export type ApiScope = (typeof apiScopes)[number];

export type RouteScope = ApiScope | 'any' | 'full';

export const scopeDescriptions: Record<ApiScope, string> = {
  read: 'every GET request (lists, posts, media, analytics, settings)',
  posts: 'create, change and delete posts; validate, find a free slot, run channel tools for post settings',
  uploads: 'upload media, fetch media from a URL, generate videos',
  analytics: 'read channel and post analytics',
  webhooks: 'register, delete and rotate webhook endpoints; read and resend deliveries',
  integrations: 'connect and disconnect channels, change their posting schedules',
};

export function isApiScope(value: string): value is ApiScope {
  return (apiScopes as readonly string[]).includes(value);
}

/** Every scope, in the canonical order: what the organization's original key and `public_api` tokens hold. */
export const fullScopes: readonly ApiScope[] = apiScopes;

export function holdsEveryScope(granted: readonly ApiScope[]): boolean {
  return apiScopes.every((scope) => granted.includes(scope));
}

/** Null when the credential may call the route, else the scope(s) it lacks, for the 403's message. */
export function missingScope(
  granted: readonly ApiScope[],
  route: { method: string; scope: RouteScope },
): string | null {
  if (route.scope === 'any') return null;
  if (route.scope === 'full') return holdsEveryScope(granted) ? null : 'full (every scope)';
  if (granted.includes(route.scope)) return null;
  if (route.method === 'get') return granted.includes('read') ? null : `${route.scope} or read`;
  return route.scope;
}
