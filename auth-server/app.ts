import Koa, { type Middleware } from 'koa';
import { SecretBox } from '../shared/crypto/secret-box.ts';
import { createHash } from 'node:crypto';
import { trustProxyHops } from '../api/trusted-proxy.ts';
import { authServerRouter, type AuthServerDeps } from './routes.ts';

/** The root key of this server's own secrets, derived from its client secret (no extra variable to manage). */
export function authServerSecrets(clientSecret: string): SecretBox {
  return new SecretBox(createHash('sha256').update(`sps-auth-server:${clientSecret}`).digest());
}

/**
 * On every answer, so no page can be forgotten: no page may be framed (a framed verify form
 * could be clickjacked into approving an attacker's code), nothing loads but the inline style,
 * the user code in the address goes to no other site, and nothing is cached.
 */
const contentSecurityPolicy = [
  'default-src \'none\'', 'style-src \'unsafe-inline\'', 'frame-ancestors \'none\'', 'base-uri \'none\'',
].join('; ');

const pageHeaders: Middleware = async (ctx, next) => {
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Content-Security-Policy', contentSecurityPolicy);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('Cache-Control', 'no-store');
  await next();
};

export function createAuthServerApp(deps: AuthServerDeps, secrets: SecretBox): Koa {
  const app = new Koa();
  trustProxyHops(app, deps.config.proxyHops);
  app.keys = [secrets.digest('auth-server-cookies-v1')];
  app.silent = true;
  app.use(pageHeaders);
  app.use(async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) ctx.body = { error: 'not_found', error_description: `no route for ${ctx.method} ${ctx.path}` };
    } catch (error) {
      const status = typeof error === 'object' && error !== null && 'status' in error && typeof error.status === 'number' && error.status < 500 ? error.status : 500;
      if (status >= 500) deps.logger.error({ err: error, path: ctx.path }, 'request failed');
      ctx.status = status;
      ctx.body = { error: status >= 500 ? 'server_error' : 'invalid_request', error_description: status >= 500 ? 'something went wrong; the error was logged' : (error instanceof Error ? error.message : 'bad request') };
    }
  });
  app.use(authServerRouter(deps).routes());
  return app;
}
