import type { Middleware } from 'koa';
import { currentOrganization, type AppState } from '../context.ts';
import { DomainError } from '../../shared/errors.ts';
import type { FixedWindowLimiter } from './fixed-window-limiter.ts';

/**
 * Counts every authenticated public API request against its organization, whichever credential
 * was used. Headers go on every answer, errors included: the legacy X-RateLimit-* trio and the
 * IETF RateLimit / RateLimit-Policy pair, named after the budget (`policy`) the route spends.
 */
export function rateLimit(limiter: FixedWindowLimiter, policy: string): Middleware<AppState> {
  return async (ctx, next) => {
    const decision = await limiter.hit(`org:${currentOrganization(ctx).id}`);
    ctx.set('X-RateLimit-Limit', String(decision.limit));
    ctx.set('X-RateLimit-Remaining', String(decision.remaining));
    ctx.set('X-RateLimit-Reset', String(decision.resetSeconds));
    ctx.set('RateLimit-Policy', `"${policy}";q=${decision.limit};w=${decision.windowSeconds}`);
    ctx.set('RateLimit', `"${policy}";r=${decision.remaining};t=${decision.resetSeconds}`);
    if (!decision.allowed) {
      ctx.set('Retry-After', String(decision.resetSeconds));
      throw new DomainError('rate_limited', `rate limit of ${decision.limit} requests per ${decision.windowSeconds} seconds reached; try again in ${decision.resetSeconds} seconds`);
    }
    await next();
  };
}
