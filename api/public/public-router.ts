import Router from '@koa/router';
import type { AppState } from '../context.ts';
import { KeyUsage } from '../caches/key-usage.ts';
import { authenticate } from '../middleware/authenticate.ts';
import { mountRoutes } from './mount-routes.ts';
import { publicApiPrefix } from './openapi/openapi-document.ts';
import type { PublicApiDeps } from './public-api-deps.ts';
import type { RouteDefinition } from './route-definition.ts';

/** Everything under /api/public/v1 that needs a credential: authenticated, rate limited, then routed. */
export function publicApiRouter(deps: PublicApiDeps, routes: readonly RouteDefinition[]): Router<AppState> {
  const router = new Router<AppState>({ prefix: publicApiPrefix });
  router.use(authenticate(deps.credentials, new KeyUsage(deps.db), deps.now));
  // Each route counts against its own budget (route-definition.ts, RouteBudget).
  mountRoutes(router, routes, { store: deps.idempotency, now: deps.now }, {
    organization: deps.limiter,
    'post-validation': deps.postValidationLimiter,
  });
  return router;
}
