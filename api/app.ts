import Koa from 'koa';
import Router from '@koa/router';
import type { RedisConnection } from '../shared/queue/redis.ts';
import type { AppState } from './context.ts';
import { dashboard } from './dashboard/dashboard-router.ts';
import { errorHandler } from './middleware/error-handler.ts';
import { requestContext } from './middleware/request-context.ts';
import { metadataRouter } from './oauth/metadata-route.ts';
import { oauthTokenRouter } from './oauth/token-route.ts';
import { registrationRouter } from './oauth/registration-route.ts';
import { docsRouter } from './public/openapi/docs-routes.ts';
import { openApiDocument } from './public/openapi/openapi-document.ts';
import type { PublicApiDeps } from './public/public-api-deps.ts';
import { publicApiRouter } from './public/public-router.ts';
import { publicRoutes } from './public/public-routes.ts';
import { mcpRouter } from './mcp/mcp-router.ts';
import type { Config } from '../shared/config/config.ts';
import type { Logger } from '../shared/logging/logger.ts';
import { trustProxyHops } from './trusted-proxy.ts';
import { LocalDiskStorage } from '../shared/storage/local-disk-storage.ts';
import { uploadsRouter } from './uploads/serve-uploads.ts';
import { shortLinkRouter } from './short-links/short-link-route.ts';
import { checkReadiness, logUnreadiness, readinessTimeoutMs } from '../shared/runtime/readiness.ts';
import { metricsRefusal } from '../shared/metrics/metrics-access.ts';
import type { SpsMetrics } from '../shared/metrics/sps-metrics.ts';
import { httpMetrics } from './middleware/http-metrics.ts';
import { queueBoard } from './operators/queue-board.ts';
import type { Queue } from 'bullmq';

export interface AppDeps extends PublicApiDeps {
  redis: RedisConnection;
  logger: Logger;
  /** URL path local uploads are served under (the path of UPLOADS_PUBLIC_URL). */
  uploadsPath: string;
  /** NODE_ENV, as validated: production makes the dashboard's cookies Secure (api/dashboard/cookies.ts). */
  environment: Config['NODE_ENV'];
  /** TRUST_PROXY_HOPS: proxies in front of the api (login and sign-up throttling key on the client address). */
  proxyHops: number;
  /** QUEUE_PREFIX: every Redis key of this deployment (or test file) lives under it. */
  queuePrefix: string;
  /** PASSWORD_HASH_LOG_N: the scrypt cost of new dashboard password hashes. */
  passwordHashLogN: number;
  /** What /metrics serves: HTTP timings and every queue's depth. */
  metrics: SpsMetrics;
  /** METRICS_TOKEN: /metrics wants it as a Bearer token; unset, /metrics is closed. */
  metricsToken: string | undefined;
  /** Every queue of the deployment, for Bull Board. */
  queues: readonly Queue[];
}

export function createApp(deps: AppDeps): Koa<AppState> {
  // From the validated config, not Koa's own read of process.env.
  const app = new Koa<AppState>({ env: deps.environment });
  trustProxyHops(app, deps.proxyHops);
  // Signs the dashboard's cookies; derived from the root secret so no extra setting is needed.
  app.keys = [deps.secrets.digest('cookie-signing-v1')];
  app.silent = true; // errors are logged once, by the error handler, with the request id
  app.use(requestContext(deps.logger));
  app.use(httpMetrics(deps.metrics));
  app.use(errorHandler());

  const health = new Router<AppState>();
  health.get('/api/health', async (ctx) => {
    await deps.db.connection.db?.admin().ping();
    await deps.redis.ping();
    ctx.body = { status: 'ok' };
  });
  // Liveness: the process answers. Readiness: what it needs to serve works (shared/runtime/readiness.ts).
  health.get('/health', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  health.get('/ready', async (ctx) => {
    const readiness = await checkReadiness({ ...deps, mediaTools: null, timeoutMs: readinessTimeoutMs });
    logUnreadiness(ctx.state.log, readiness);
    ctx.status = readiness.ready ? 200 : 503;
    ctx.body = { status: readiness.ready ? 'ready' : 'not_ready', checks: readiness.checks };
  });
  health.get('/metrics', async (ctx) => {
    const refusal = metricsRefusal(deps.metricsToken, ctx.get('Authorization'));
    if (refusal !== null) {
      ctx.set(refusal.headers);
      ctx.status = refusal.status;
      ctx.body = refusal.body;
      return;
    }
    ctx.type = deps.metrics.contentType;
    ctx.body = await deps.metrics.render();
  });
  app.use(health.routes());

  if (deps.storage instanceof LocalDiskStorage) {
    const uploads = uploadsRouter(deps.storage, deps.uploadsPath);
    app.use(uploads.routes());
  }

  app.use(shortLinkRouter(deps.db).routes());
  app.use(oauthTokenRouter(deps).routes());
  app.use(registrationRouter(deps).routes());
  // At the host root, beside the dashboard's consent page: RFC 8414 discovery starts from the issuer.
  app.use(metadataRouter(deps).routes());

  const routes = publicRoutes(deps);
  // Paths in the document carry /api/public/v1, so the server is the backend address without /api.
  const docs = docsRouter(openApiDocument(routes, deps.backendUrl.replace(/\/api$/, '')));
  app.use(docs.routes());
  const publicApi = publicApiRouter(deps, routes);
  app.use(publicApi.routes());
  app.use(publicApi.allowedMethods({ throw: false }));
  // The same routes as MCP tools for AI agents (api/mcp/), with the same credentials and limits.
  app.use(mcpRouter(deps, routes).routes());
  app.use(queueBoard(deps, deps.queues));
  app.use(dashboard(deps));
  return app;
}
