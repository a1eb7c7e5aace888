import type { Middleware } from 'koa';
import type { AppState } from '../context.ts';
import { missingScope, type RouteScope } from '../../shared/domain/api-keys/scopes.ts';
import { DomainError } from '../../shared/errors.ts';

/**
 * The route's scope check, after authenticate.ts: 403 insufficient_scope naming what is needed.
 * Runs before the rate limit, so a refused call spends none of the organization's budget.
 */
export function requireScope(route: { method: string; path: string; scope: RouteScope }): Middleware<AppState> {
  const call = `${route.method.toUpperCase()} ${route.path}`;
  return async (ctx, next) => {
    const missing = missingScope(ctx.state.scopes ?? [], route);
    if (missing !== null) {
      throw new DomainError('insufficient_scope', `this credential lacks the scope ${call} needs: ${missing}`);
    }
    await next();
  };
}
