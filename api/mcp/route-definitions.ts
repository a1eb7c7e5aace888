import type { PublicApiDeps } from '../public/public-api-deps.ts';
import { publicRoutes } from '../public/public-routes.ts';
import type { RouteDefinition } from '../public/route-definition.ts';

/**
 * The public routes' definitions without an api behind them, for `sps mcp`, whose tools call the
 * API over HTTP: it needs their schemas, not their handlers. Defining a route never reads its deps
 * (api/public/api-keys/route-scopes.test.ts holds every route to it), so a deps object that
 * throws on any read is enough, and tells at once if that ever changes.
 */
export function routeDefinitionsOnly(): RouteDefinition[] {
  const noDeps = new Proxy({}, {
    get(_target, key) {
      throw new Error(`a route read deps.${String(key)} while being defined; sps mcp has no api to give it`);
    },
  }) as PublicApiDeps;
  return publicRoutes(noDeps);
}
