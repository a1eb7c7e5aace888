import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context, Middleware } from 'koa';
import type { SecretBox } from '../../shared/crypto/secret-box.ts';
import { csrfCookieName, readDashboardCookie, setDashboardCookie } from './cookies.ts';
import { formField } from './form-body.ts';
import { words } from './i18n/translate.ts';
import { renderProblem } from './layout.ts';
import type { DashboardState } from './state.ts';

/**
 * Signed double submit: a random seed lives in a signed HttpOnly cookie and every form carries a
 * token derived from it with the server's key. Another site can neither read the cookie nor
 * compute the token, so a POST that carries a matching pair came from one of our pages.
 */
function tokenFor(secrets: SecretBox, seed: string): string {
  return secrets.digest(`dashboard-csrf-v1:${seed}`);
}

function sameToken(sent: string, expected: string): boolean {
  const a = Buffer.from(sent);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A new seed (and so a new form token): at every login, so a token never outlives an account switch. */
export function issueCsrfSeed(ctx: Context & { state: DashboardState }, secrets: SecretBox): void {
  const seed = randomBytes(32).toString('base64url');
  setDashboardCookie(ctx, csrfCookieName, seed);
  ctx.state.csrfToken = tokenFor(secrets, seed);
}

/** Refuses every POST without the pair (403, a readable page); gives every page its token. */
export function csrfProtection(secrets: SecretBox): Middleware<DashboardState> {
  return async (ctx, next) => {
    const seed = readDashboardCookie(ctx, csrfCookieName);
    if (ctx.method === 'POST') {
      // A form carries the token as a field; the composer's upload script (multipart) as a header.
      const sent = formField(ctx, '_csrf') || ctx.get('X-CSRF-Token');
      if (seed === null || sent === '' || !sameToken(sent, tokenFor(secrets, seed))) {
        if (seed === null) issueCsrfSeed(ctx, secrets);
        const t = words(ctx);
        renderProblem(ctx, 403, t('form.expiredTitle'), t('form.expired'));
        return;
      }
    }
    if (seed === null) issueCsrfSeed(ctx, secrets);
    else ctx.state.csrfToken = tokenFor(secrets, seed);
    await next();
  };
}
