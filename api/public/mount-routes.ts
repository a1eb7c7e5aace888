import Router from '@koa/router';
import { currentOrganization, type AppContext, type AppState } from '../context.ts';
import { requireScope } from '../middleware/authorize.ts';
import { idempotency } from '../middleware/idempotency.ts';
import { bodyLimits, jsonBody } from '../middleware/json-body.ts';
import { rateLimit } from '../middleware/rate-limit.ts';
import type { IdempotencyStore } from '../middleware/idempotency-store.ts';
import type { FixedWindowLimiter } from '../middleware/fixed-window-limiter.ts';
import { refuseNulCharacters } from '../../shared/validation/json-shape.ts';
import { Reply, routeBudgets, type RouteBudget, type RouteDefinition } from './route-definition.ts';

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

const routeMethods = ['get', 'post', 'put', 'delete'] as const;

/** A route's path as a pattern of request paths: `:id` stands for one segment. */
function pathPattern(path: string): RegExp {
  const segments = path.split('/').map((segment) =>
    segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${segments.join('/')}$`);
}

/**
 * A path of words beside one with a parameter (`/posts/validate` beside `/posts/:id`) would
 * answer a method it does not take through the other route (GET /posts/validate reading a post
 * named "validate"). Such methods are refused on it with 405 and its own Allow, as on any path;
 * registered before the routes, so the refusal is what runs.
 */
function refuseShadowedMethods(router: Router<AppState>, routes: readonly RouteDefinition[]): void {
  const methodsByPath = new Map<string, Set<string>>();
  for (const route of routes) {
    methodsByPath.set(route.path, (methodsByPath.get(route.path) ?? new Set()).add(route.method));
  }
  for (const [path, methods] of methodsByPath) {
    if (path.includes(':')) continue;
    const allow = [...methods].map((method) => method.toUpperCase()).join(', ');
    for (const method of routeMethods) {
      const shadowed = !methods.has(method) && routes.some((route) =>
        route.method === method && route.path.includes(':') && pathPattern(route.path).test(path));
      if (!shadowed) continue;
      router[method](path, (ctx) => {
        // The error handler writes the JSON body of a 405 (method_not_allowed).
        ctx.status = 405;
        ctx.set('Allow', allow);
      });
    }
  }
}

/**
 * Turns route definitions into a Koa router: check the credential's scope, count the request
 * against the route's budget, parse params, query and body with the route's zod schemas, then
 * handle. Routes marked `idempotent` honour an Idempotency-Key once their body is parsed.
 */
export function mountRoutes(
  router: Router<AppState>,
  routes: readonly RouteDefinition[],
  keys: { store: IdempotencyStore; now: () => Date },
  limiters: Record<RouteBudget, FixedWindowLimiter>,
): void {
  const keyed = idempotency(keys.store, keys.now);
  refuseShadowedMethods(router, routes);
  const limited = new Map(routeBudgets.map((budget) => [budget, rateLimit(limiters[budget], budget)]));
  for (const route of routes) {
    const handler = (ctx: AppContext): Promise<void> => runRoute(route, ctx);
    const limit = limited.get(route.budget ?? 'organization');
    if (limit === undefined) throw new Error(`route ${route.method} ${route.path} names an unknown budget`);
    const before = [
      requireScope(route),
      limit,
      ...(route.body === undefined ? [] : [jsonBody(route.bodyLimit ?? bodyLimits.default)]),
      ...(route.idempotent === true ? [keyed] : []),
    ];
    router[route.method](route.path, ...before, handler);
  }
}
