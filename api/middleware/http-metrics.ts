import type { Middleware } from 'koa';
import type { AppState } from '../context.ts';
import type { SpsMetrics } from '../../shared/metrics/sps-metrics.ts';

/**
 * Times every request into `sps_http_request_duration_seconds`. The route label is the router's
 * pattern (`/api/public/v1/posts/:id`), set by @koa/router on the context it matched; requests no
 * route took (the dashboard's own pages, 404s) are `unmatched`, so ids never become series.
 */
export function httpMetrics(metrics: SpsMetrics): Middleware<AppState> {
  return async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      const matched = (ctx as { _matchedRoute?: unknown })._matchedRoute;
      const route = typeof matched === 'string' ? matched : 'unmatched';
      const seconds = (performance.now() - started) / 1000;
      metrics.httpDuration.observe({ method: ctx.method, route, status: String(ctx.status) }, seconds);
    }
  };
}
