import Koa from 'koa';
import Router from '@koa/router';
import type { Redis } from 'ioredis';
import type { AppState } from './context.ts';
import { dashboard } from './dashboard/dashboard-router.ts';
import { errorHandler } from './middleware/error-handler.ts';
import { requestContext } from './middleware/request-context.ts';
import { oauthTokenRouter } from './oauth/token-route.ts';
import { docsRouter } from './public/openapi/docs-routes.ts';
import { openApiDocument } from './public/openapi/openapi-document.ts';
import type { PublicApiDeps } from './public/public-api-deps.ts';
import { publicApiRouter } from './public/public-router.ts';
import { publicRoutes } from './public/public-routes.ts';
import type { Logger } from '../shared/logging/logger.ts';
import { LocalDiskStorage } from '../shared/storage/local-disk-storage.ts';
import { uploadsRouter } from './uploads/serve-uploads.ts';

export interface AppDeps extends PublicApiDeps {
  redis: Redis;
  logger: Logger;
  /** URL path local uploads are served under (the path of UPLOADS_PUBLIC_URL). */
  uploadsPath: string;
  /** TRUST_PROXY: take the client address from X-Forwarded-For (login throttling keys on it). */
  trustProxy: boolean;
}

export function createApp(deps: AppDeps): Koa<AppState> {
  const app = new Koa<AppState>();
  app.proxy = deps.trustProxy;
  // Signs the dashboard's cookies; derived from the root secret so no extra setting is needed.
  app.keys = [deps.secrets.digest('cookie-signing-v1')];
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

  if (deps.storage instanceof LocalDiskStorage) {
    const uploads = uploadsRouter(deps.storage, deps.uploadsPath);
    app.use(uploads.routes());
  }

  app.use(oauthTokenRouter(deps).routes());

  const routes = publicRoutes(deps);
  // Paths in the document carry /api/public/v1, so the server is the backend address without /api.
  const docs = docsRouter(openApiDocument(routes, deps.backendUrl.replace(/\/api$/, '')));
  app.use(docs.routes());
  const publicApi = publicApiRouter(deps, routes);
  app.use(publicApi.routes());
  app.use(publicApi.allowedMethods({ throw: false }));
  app.use(dashboard(deps));
  return app;
}
