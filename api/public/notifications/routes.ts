import Router from '@koa/router';
import { currentOrganization, type AppState } from '../../context.ts';
import type { Database } from '../../../shared/db/database.ts';
import { listNotifications } from '../../../shared/domain/notifications/notifications.ts';
import { listNotificationsQuery } from './schema.ts';

export function notificationsRoutes(deps: { db: Database }): Router<AppState> {
  const router = new Router<AppState>();
  router.get('/notifications', async (ctx) => {
    const { page } = listNotificationsQuery.parse(ctx.query);
    ctx.body = await listNotifications(deps.db, currentOrganization(ctx).id, page);
  });
  return router;
}
