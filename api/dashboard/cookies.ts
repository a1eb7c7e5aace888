import type { Context } from 'koa';

export const sessionCookieName = 'sps_session';
export const csrfCookieName = 'sps_csrf';

/**
 * Every dashboard cookie: signed with the app's keys (a forged or edited value reads as absent),
 * out of reach of page scripts, not sent on cross-site subrequests or POSTs, and Secure whenever
 * the request came over https (directly or through the proxy).
 */
export function setDashboardCookie(ctx: Context, name: string, value: string | null, maxAgeMs?: number): void {
  ctx.cookies.set(name, value, {
    signed: true,
    httpOnly: true,
    sameSite: 'lax',
    secure: ctx.secure,
    path: '/',
    overwrite: true,
    ...(maxAgeMs === undefined ? {} : { maxAge: maxAgeMs }),
  });
}

export function readDashboardCookie(ctx: Context, name: string): string | null {
  const value = ctx.cookies.get(name, { signed: true });
  return value === undefined || value === '' ? null : value;
}
