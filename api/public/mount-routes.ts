import Router from '@koa/router';
import { currentOrganization, type AppContext, type AppState } from '../context.ts';
import { idempotency } from '../middleware/idempotency.ts';
import { bodyLimits, jsonBody } from '../middleware/json-body.ts';
import type { IdempotencyStore } from '../../shared/idempotency/idempotency-store.ts';
import { refuseNulCharacters } from '../../shared/validation/json-shape.ts';
import { Reply, type RouteDefinition } from './route-definition.ts';

async function runRoute(route: RouteDefinition, ctx: AppContext): Promise<void> {
  refuseNulCharacters(ctx.params, 'path');
  refuseNulCharacters(ctx.query, 'query');
  const params = route.params === undefined ? undefined : route.params.parse(ctx.params);
  const query = route.query === undefined ? undefined : route.query.parse(ctx.query);
  const body = route.body === undefined ? undefined : route.body.parse(ctx.request.body ?? {});
  const result = await route.handle({ params, query, body, organization: currentOrganization(ctx), ctx });
  if (result instanceof Reply) {
    ctx.status = result.status;
    ctx.body = result.body;
  } else {
    ctx.status = route.status;
    ctx.body = result;
  }
}

/**
 * Turns route definitions into a Koa router: parse params, query and body with the route's zod
 * schemas, then handle. Routes marked `idempotent` honour an Idempotency-Key once their body is parsed.
 */
export function mountRoutes(
  router: Router<AppState>,
  routes: readonly RouteDefinition[],
  keys: { store: IdempotencyStore; now: () => Date },
): void {
  const keyed = idempotency(keys.store, keys.now);
  for (const route of routes) {
    const handler = (ctx: AppContext): Promise<void> => runRoute(route, ctx);
    const before = [
      ...(route.body === undefined ? [] : [jsonBody(route.bodyLimit ?? bodyLimits.default)]),
      ...(route.idempotent === true ? [keyed] : []),
    ];
    router[route.method](route.path, ...before, handler);
  }
}
