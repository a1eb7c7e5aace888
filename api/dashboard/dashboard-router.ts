import Router from '@koa/router';
import type { Middleware } from 'koa';
import { serveAsset } from './assets.ts';
import { csrfProtection } from './csrf.ts';
import { formBody } from './form-body.ts';
import { htmlErrors } from './html-errors.ts';
import { words } from './i18n/translate.ts';
import { renderProblem } from './layout.ts';
import { LoginThrottle } from './login-throttle.ts';
import { registerAccountPages } from './pages/account-pages.ts';
import { registerApprovedAppPages } from './pages/approved-app-pages.ts';
import { registerChannelPages } from './pages/channel-pages.ts';
import { registerChannelSchedulePages } from './pages/channel-schedule-pages.ts';
import { registerComposePages, type ComposerDeps } from './pages/compose-pages.ts';
import { registerConnectPages } from './pages/connect-pages.ts';
import { registerConsentPages } from './pages/consent-pages.ts';
import { registerNotificationPages } from './pages/notification-pages.ts';
import { registerOAuthAppPages } from './pages/oauth-app-pages.ts';
import { registerPostPages } from './pages/post-pages.ts';
import { registerPostDetailPages, type PostPageDeps } from './pages/post-detail-pages.ts';
import { registerCalendarPages } from './pages/calendar-pages.ts';
import { registerMediaPages } from './pages/media-pages.ts';
import { registerSettingsPages } from './pages/settings-pages.ts';
import { registerWebhookPages } from './pages/webhook-pages.ts';
import { loadSession } from './session.ts';
import type { DashboardState } from './state.ts';

/** Pages show secrets and act on a session: never cached, never framed (the consent screen above all). */
const pageHeaders: Middleware<DashboardState> = async (ctx, next) => {
  ctx.set('Cache-Control', 'no-store');
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'same-origin');
  await next();
};

/** Paths the rest of the app owns; a miss there keeps the API's JSON 404. */
const nonPagePaths = /^\/(api|uploads)(\/|$)/;

type DashboardMiddleware = ReturnType<Router<DashboardState>['routes']>;

/** The dashboard: server-rendered pages at the site root and the OAuth consent screen. */
export function dashboard(deps: ComposerDeps & PostPageDeps): DashboardMiddleware {
  const router = new Router<DashboardState>();
  // Router-level middleware runs only for requests that match one of the routes below.
  router.use(pageHeaders, htmlErrors(), formBody(), csrfProtection(deps.secrets), loadSession(deps));
  registerAccountPages(router, deps, new LoginThrottle(deps.redis, deps.secrets, deps.queuePrefix));
  registerSettingsPages(router, deps);
  registerChannelPages(router, deps);
  registerConnectPages(router, deps);
  registerChannelSchedulePages(router, deps);
  registerComposePages(router, deps);
  registerPostPages(router, deps);
  registerPostDetailPages(router, deps);
  registerCalendarPages(router, deps);
  registerMediaPages(router, deps);
  registerNotificationPages(router, deps);
  registerWebhookPages(router, deps);
  registerOAuthAppPages(router, deps);
  registerApprovedAppPages(router, deps);
  registerConsentPages(router, deps);
  const routes = router.routes();

  // Misses elsewhere on the site get a page too, rather than the API's JSON.
  const withFallback: DashboardMiddleware = async (ctx, next) => {
    // Static files first: no session read, no CSRF seed, and cached unlike pages.
    if (serveAsset(ctx)) return;
    await routes(ctx, next);
    if (ctx.status === 404 && ctx.body === undefined && ctx.method === 'GET' && !nonPagePaths.test(ctx.path) && ctx.accepts('html') === 'html') {
      ctx.set('Cache-Control', 'no-store');
      const t = words(ctx);
      renderProblem(ctx, 404, t('problem.notFound'), t('problem.noPage'));
    }
  };
  return withFallback;
}
