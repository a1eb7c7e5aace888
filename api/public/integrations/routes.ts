import Router from '@koa/router';
import { currentOrganization, type AppState } from '../../context.ts';
import type { Database } from '../../../shared/db/database.ts';
import { listChannels } from '../../../shared/domain/channels/channels.ts';

export function integrationsRoutes(deps: { db: Database }): Router<AppState> {
  const router = new Router<AppState>();
  router.get('/integrations', async (ctx) => {
    ctx.body = await listChannels(deps.db, currentOrganization(ctx).id);
  });
  return router;
}
