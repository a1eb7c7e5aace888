import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { KoaAdapter } from '@bull-board/koa';
import type { Queue } from 'bullmq';
import type { Middleware } from 'koa';
import type { DashboardDeps } from '../dashboard/dashboard-deps.ts';
import { words } from '../dashboard/i18n/translate.ts';
import { renderProblem } from '../dashboard/layout.ts';
import { loginPath, safeReturnPath } from '../dashboard/return-target.ts';
import { loadSession } from '../dashboard/session.ts';
import type { DashboardState } from '../dashboard/state.ts';

export const queueBoardPath = '/admin/queues';

/**
 * Bull Board's own calls (retry, promote, clean) come from its page by fetch: a request another
 * site's page makes does not say same-origin, so it cannot act with an operator's cookie.
 */
function fromThisSite(ctx: { get(name: string): string; protocol: string; host: string }): boolean {
  const site = ctx.get('Sec-Fetch-Site');
  if (site !== '') return site === 'same-origin';
  // Koa's ctx.origin is the Origin header itself: compare with the address this request came to.
  const origin = ctx.get('Origin');
  return origin === '' || origin === `${ctx.protocol}://${ctx.host}`;
}

/**
 * Bull Board at /admin/queues for operators (the operator flag on a dashboard account, set by
 * `npm run operator:grant`): every queue of the deployment, with retry, promote and clean. Signed-out
 * visitors are sent to log in; signed-in accounts that are not operators get 403.
 */
export function queueBoard(deps: DashboardDeps, queues: readonly Queue[]): Middleware<DashboardState> {
  const serverAdapter = new KoaAdapter();
  serverAdapter.setBasePath(queueBoardPath);
  createBullBoard({
    queues: queues.map((queue) => new BullMQAdapter(queue)),
    serverAdapter,
    options: { uiConfig: { boardTitle: 'SPS queues' } },
  });
  const board = serverAdapter.registerPlugin();
  const session = loadSession(deps);

  return async (ctx, next) => {
    if (ctx.path !== queueBoardPath && !ctx.path.startsWith(`${queueBoardPath}/`)) {
      await next();
      return;
    }
    ctx.set('Cache-Control', 'no-store');
    ctx.set('X-Frame-Options', 'DENY');
    await session(ctx, async () => {
      const account = ctx.state.signedIn;
      if (account === undefined) {
        if (ctx.method === 'GET') ctx.redirect(loginPath(safeReturnPath(ctx.originalUrl)));
        else renderProblem(ctx, 401, words(ctx)('queues.logInTitle'), words(ctx)('queues.logIn'));
        return;
      }
      if (!account.operator) {
        renderProblem(ctx, 403, words(ctx)('queues.operatorsOnlyTitle'), words(ctx)('queues.operatorsOnly'));
        return;
      }
      if (ctx.method !== 'GET' && !fromThisSite(ctx)) {
        renderProblem(ctx, 403, words(ctx)('queues.refusedTitle'), words(ctx)('queues.refused'));
        return;
      }
      await board(ctx, next);
    });
  };
}
