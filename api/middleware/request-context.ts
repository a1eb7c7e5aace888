import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { AppState } from '../context.ts';
import { LogEvent } from '../../shared/logging/events.ts';
import type { Logger } from '../../shared/logging/logger.ts';
import { RequestLog } from './request-log.ts';

/** A caller's X-Request-Id is kept when it looks like an id; otherwise one is made. */
const acceptableRequestId = /^[A-Za-z0-9._-]{8,128}$/;

export function requestContext(logger: Logger): Middleware<AppState> {
  return async (ctx, next) => {
    const given = ctx.get('X-Request-Id');
    const requestId = acceptableRequestId.test(given) ? given : randomUUID();
    ctx.state.requestId = requestId;
    const requestLog = new RequestLog(logger, requestId);
    ctx.state.requestLog = requestLog;
    // A getter, so the child logger is made only by a request that logs more than its last line.
    Object.defineProperty(ctx.state, 'log', { get: () => requestLog.logger, enumerable: true });
    ctx.set('X-Request-Id', requestId);
    const started = performance.now();
    try {
      await next();
    } finally {
      const ms = Math.round(performance.now() - started);
      requestLog.completed(
        { event: LogEvent.requestCompleted, method: ctx.method, path: ctx.path, status: ctx.status, ms },
        'request completed',
      );
    }
  };
}
