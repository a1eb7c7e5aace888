import Router from '@koa/router';
import type { AppState } from '../context.ts';
import { authenticate } from '../middleware/authenticate.ts';
import { rateLimit } from '../middleware/rate-limit.ts';
import { mountRoutes } from './mount-routes.ts';
import { publicApiPrefix } from './openapi/openapi-document.ts';
import type { PublicApiDeps } from './public-api-deps.ts';
import type { RouteDefinition } from './route-definition.ts';

/** Everything under /api/public/v1 that needs a credential: authenticated, rate limited, then routed. */
export function publicApiRouter(deps: PublicApiDeps, routes: readonly RouteDefinition[]): Router<AppState> {
  const router = new Router<AppState>({ prefix: publicApiPrefix });
  router.use(authenticate(deps.credentials));
  router.use(rateLimit(deps.limiter));
  mountRoutes(router, routes, { store: deps.idempotency, now: deps.now });
  return router;
}
