import Koa from 'koa';
import Router from '@koa/router';
import type { Redis } from 'ioredis';
import type { AppState } from './context.ts';
import { errorHandler } from './middleware/error-handler.ts';
import { requestContext } from './middleware/request-context.ts';
import { publicApiRouter, type PublicApiDeps } from './public/public-router.ts';
import type { Logger } from '../shared/logging/logger.ts';

export interface AppDeps extends PublicApiDeps {
  redis: Redis;
  logger: Logger;
}

export function createApp(deps: AppDeps): Koa<AppState> {
  const app = new Koa<AppState>();
  app.proxy = true;
  app.silent = true; // errors are logged once, by the error handler, with the request id
  app.use(requestContext(deps.logger));
  app.use(errorHandler());

  const health = new Router<AppState>();
  health.get('/api/health', async (ctx) => {
    await deps.db.connection.db?.admin().ping();
    await deps.redis.ping();
    ctx.body = { status: 'ok' };
  });
  app.use(health.routes());

  const publicApi = publicApiRouter(deps);
  app.use(publicApi.routes());
  app.use(publicApi.allowedMethods({ throw: false }));
  return app;
}
