import type { Context } from 'koa';

export const sessionCookieName = 'sps_session';
export const csrfCookieName = 'sps_csrf';

/**
 * Secure whenever the request came over https (directly, or through a trusted proxy hop), and
 * always in production: there the dashboard is served over https even when the TLS proxy in front
 * is not a trusted hop (compose's default), so the request reads as plain http here.
 */
function mustBeSecure(ctx: Context): boolean {
  return ctx.secure || ctx.app.env === 'production';
}

/**
 * Every dashboard cookie: signed with the app's keys (a forged or edited value reads as absent),
 * out of reach of page scripts, not sent on cross-site subrequests or POSTs, and Secure as above.
 */
export function setDashboardCookie(ctx: Context, name: string, value: string | null, maxAgeMs?: number): void {
  const secure = mustBeSecure(ctx);
  // The cookies module refuses a Secure cookie on a request it takes for plain http; in
  // production we know the browser's side of the connection is https.
  if (secure) ctx.cookies.secure = true;
  ctx.cookies.set(name, value, {
    signed: true,
    httpOnly: true,
    sameSite: 'lax',
    secure,
    path: '/',
    overwrite: true,
    ...(maxAgeMs === undefined ? {} : { maxAge: maxAgeMs }),
  });
}

export function readDashboardCookie(ctx: Context, name: string): string | null {
  const value = ctx.cookies.get(name, { signed: true });
  return value === undefined || value === '' ? null : value;
}
