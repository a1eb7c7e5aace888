import Router from '@koa/router';
import type { AppState } from '../context.ts';
import { authenticate } from '../middleware/authenticate.ts';
import type { SecretBox } from '../../shared/crypto/secret-box.ts';
import type { Database } from '../../shared/db/database.ts';
import type { PublishScheduler } from '../../shared/domain/posts/publish-scheduler.ts';
import { integrationsRoutes } from './integrations/routes.ts';
import { notificationsRoutes } from './notifications/routes.ts';
import { postsRoutes } from './posts/routes.ts';

export interface PublicApiDeps {
  db: Database;
  secrets: SecretBox;
  scheduler: PublishScheduler;
  now: () => Date;
}

/** Everything under /api/public/v1: authenticated, then one router per resource. */
export function publicApiRouter(deps: PublicApiDeps): Router<AppState> {
  const router = new Router<AppState>({ prefix: '/api/public/v1' });
  router.use(authenticate(deps));
  for (const resource of [integrationsRoutes(deps), notificationsRoutes(deps), postsRoutes(deps)]) {
    router.use(resource.routes(), resource.allowedMethods({ throw: false }));
  }
  return router;
}
