import type { Context } from 'koa';

/**
 * The languages the dashboard speaks, the first being the one for a browser that asks for none of
 * them. Adding one is a catalog file (messages-<code>.ts) and its code here.
 */
export const dashboardLocales = ['en', 'de'] as const;

export type DashboardLocale = (typeof dashboardLocales)[number];

/**
 * The reader's language, from Accept-Language alone (quality values honoured, `de-AT` counts as
 * `de`): no cookie or account setting, so a page always says what the browser asked for.
 */
export function localeOf(ctx: Pick<Context, 'acceptsLanguages'>): DashboardLocale {
  const chosen = ctx.acceptsLanguages([...dashboardLocales]);
  return typeof chosen === 'string' && isDashboardLocale(chosen) ? chosen : dashboardLocales[0];
}

function isDashboardLocale(code: string): code is DashboardLocale {
  return (dashboardLocales as readonly string[]).includes(code);
}
