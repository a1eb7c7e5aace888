import { randomBytes, timingSafeEqual } from 'node:crypto';
import Router from '@koa/router';
import type { Context } from 'koa';
import { koaBody } from 'koa-body';
import type { Pool } from 'pg';
import { LogEvent } from '../shared/logging/events.ts';
import type { Logger } from '../shared/logging/logger.ts';
import type { AddressThrottle, ThrottleVerdict } from './address-throttle.ts';
import type { AuthServerConfig } from './config.ts';
import type { DeviceRequests } from './device-requests.ts';
import { resultPage, verifyPage, type VerifyCode } from './pages.ts';
import { exchangeAtService } from './token-exchange.ts';
import { displayUserCode, normaliseUserCode } from './user-code.ts';

export interface AuthServerDeps {
  config: AuthServerConfig;
  /** The public URL, resolved once listening (SERVER_URL, or http://localhost:{port}). */
  serverUrl: string;
  pool: Pool;
  requests: DeviceRequests;
  /** Wrong user codes per client address. */
  verifyThrottle: AddressThrottle;
  /** Logins started per client address. */
  codeThrottle: AddressThrottle;
  logger: Logger;
}

const csrfCookie = 'sps_device_csrf';

/** Signed double-submit token: a form posted from another site cannot know it. */
function csrfToken(ctx: Context): string {
  const existing = ctx.cookies.get(csrfCookie, { signed: true });
  if (existing !== undefined) return existing;
  const token = randomBytes(24).toString('base64url');
  ctx.cookies.set(csrfCookie, token, { signed: true, httpOnly: true, sameSite: 'lax', path: '/device' });
  return token;
}

function csrfMatches(ctx: Context, given: unknown): boolean {
  const expected = ctx.cookies.get(csrfCookie, { signed: true });
  if (expected === undefined || typeof given !== 'string') return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

function formField(ctx: Context, name: string): unknown {
  const body: unknown = ctx.request.body;
  return typeof body === 'object' && body !== null && name in body ? (body as Record<string, unknown>)[name] : undefined;
}

export function authServerRouter(deps: AuthServerDeps): Router {
  const { config, requests, verifyThrottle, codeThrottle } = deps;
  const refused = (ctx: Context, verdict: Extract<ThrottleVerdict, { allowed: false }>, what: string): void => {
    deps.logger.warn({ event: LogEvent.clientThrottled, what, address: ctx.ip }, `throttled: ${what}`);
    ctx.set('Retry-After', String(verdict.retryAfterSeconds));
  };
  const router = new Router();
  const parseBody = koaBody({
    urlencoded: true, json: true, multipart: false, text: false, formLimit: '16kb', jsonLimit: '16kb',
  });
  // A body that cannot be read (corrupt gzip or brotli, an unknown encoding, too large) is the
  // client's fault: its own 4xx (413, 415) or a 400, never a 500.
  const form = async (ctx: Context, next: () => Promise<unknown>): Promise<void> => {
    try {
      await parseBody(ctx, () => Promise.resolve());
    } catch (error) {
      const status = typeof error === 'object' && error !== null && 'status' in error
        && (error.status === 413 || error.status === 415) ? error.status : 400;
      ctx.status = status;
      ctx.body = {
        error: 'invalid_request',
        error_description: `the body could not be read (${error instanceof Error ? error.message : String(error)})`,
      };
      return;
    }
    await next();
  };

  router.get('/health', async (ctx) => {
    try {
      await deps.pool.query('SELECT 1');
      ctx.body = { status: 'ok' };
    } catch (error) {
      deps.logger.error({ err: error }, 'health check: database unreachable');
      ctx.status = 503;
      ctx.body = { status: 'unavailable', error: 'the database does not answer' };
    }
  });

  router.post('/device/code', form, async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    const verdict = await codeThrottle.hit(ctx.ip);
    if (!verdict.allowed) {
      refused(ctx, verdict, 'device codes');
      ctx.status = 429;
      ctx.body = {
        error: 'rate_limited',
        error_description: `too many logins started from your address; wait ${verdict.retryAfterSeconds} seconds`,
      };
      return;
    }
    const created = await requests.create();
    if (created === null) {
      deps.logger.error({ event: LogEvent.serviceBusy }, 'live device requests at their bound: refusing logins');
      ctx.status = 503;
      ctx.set('Retry-After', '60');
      ctx.body = {
        error: 'temporarily_unavailable',
        error_description: 'too many logins in progress; retry in a minute',
      };
      return;
    }
    ctx.body = {
      device_code: created.deviceCode,
      user_code: displayUserCode(created.userCode),
      verification_uri: `${deps.serverUrl}/device/verify`,
      expires_in: created.expiresIn,
      interval: created.interval,
    };
  });

  router.get('/device/verify', (ctx) => {
    // Not looked up here: that would answer whether a code is live without counting a guess.
    const linked = typeof ctx.query.code === 'string' ? normaliseUserCode(ctx.query.code.slice(0, 20)) : null;
    ctx.type = 'html';
    const code = linked === null ? { typed: '' } : { shown: displayUserCode(linked) };
    ctx.body = verifyPage({ code, csrf: csrfToken(ctx) });
  });

  router.post('/device/verify', form, async (ctx) => {
    const given = formField(ctx, 'user_code');
    const typed = typeof given === 'string' ? given.slice(0, 20) : '';
    const userCode = normaliseUserCode(typed);
    const again = (status: number, error: string, code: VerifyCode = { typed }): void => {
      ctx.status = status;
      ctx.type = 'html';
      ctx.body = verifyPage({ code, csrf: csrfToken(ctx), error });
    };
    if (!csrfMatches(ctx, formField(ctx, 'csrf'))) { again(403, 'This form expired. Please enter the code again.'); return; }
    if (formField(ctx, 'confirm') !== 'yes') {
      const code = userCode === null ? { typed } : { shown: displayUserCode(userCode) };
      again(400, 'Compare the code with the one your terminal shows, and tick the box if they are the same.', code);
      return;
    }
    // Counted before the code is looked up, the count and the limit in one statement: guesses sent
    // in parallel cannot all pass a check read before any of them was counted. A right code is
    // refunded below, so the limit is on wrong codes.
    const verdict = await verifyThrottle.hit(ctx.ip);
    if (!verdict.allowed) {
      refused(ctx, verdict, 'wrong user codes');
      const minutes = Math.ceil(verdict.retryAfterSeconds / 60);
      const wait = `${minutes} minute${minutes === 1 ? '' : 's'}`;
      again(429, `Too many wrong codes from your address. Wait ${wait} and try again.`);
      return;
    }
    const state = userCode === null ? null : await requests.startAuthorization(userCode);
    if (state === null) {
      again(400, 'That code is wrong or has expired. Check the code in your terminal, or run sps auth:login again.');
      return;
    }
    await verifyThrottle.refund(ctx.ip);
    const consent = new URL('/oauth/authorize', config.frontendUrl);
    consent.search = new URLSearchParams({ client_id: config.clientId, response_type: 'code', state }).toString();
    ctx.redirect(consent.toString());
  });

  router.get('/device/callback', async (ctx) => {
    const state = typeof ctx.query.state === 'string' ? ctx.query.state : '';
    const request = state === '' ? null : await requests.findByState(state);
    ctx.type = 'html';
    if (request === null) {
      ctx.status = 400;
      ctx.body = resultPage('Login expired', 'This login request is unknown or has expired. Run sps auth:login again.', 'error');
      return;
    }
    if (ctx.query.error === 'access_denied') {
      await requests.deny(request.id);
      ctx.body = resultPage('Access denied', 'You denied access. The command-line client was not logged in; you can close this window.', 'error');
      return;
    }
    const code = typeof ctx.query.code === 'string' ? ctx.query.code : '';
    try {
      const token = await exchangeAtService({ apiUrl: config.apiUrl, clientId: config.clientId, clientSecret: config.clientSecret, code });
      await requests.complete(request.id, token.accessToken, token.organizationId);
    } catch (error) {
      deps.logger.warn({ err: error }, 'code exchange failed');
      ctx.status = 502;
      ctx.body = resultPage('Login failed', 'The service did not accept the authorization. Run sps auth:login again.', 'error');
      return;
    }
    ctx.body = resultPage('You are logged in', 'The command-line client is now connected. You can close this window and return to your terminal.', 'done');
  });

  router.post('/device/token', form, async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    const deviceCode = formField(ctx, 'device_code');
    if (typeof deviceCode !== 'string' || deviceCode === '') {
      ctx.status = 400;
      ctx.body = { error: 'invalid_request', error_description: 'device_code is required' };
      return;
    }
    const result = await requests.poll(deviceCode);
    if (result.outcome === 'token') {
      ctx.body = { access_token: result.accessToken, api_url: config.apiUrl, organization_id: result.organizationId };
      return;
    }
    ctx.status = 400;
    if (result.outcome === 'slow_down') {
      // `interval` is not in RFC 8628's error answer; it tells a client what the server now expects.
      ctx.body = {
        error: 'slow_down',
        error_description: `polling too fast; wait ${result.intervalSeconds} seconds between polls`,
        interval: result.intervalSeconds,
      };
      return;
    }
    ctx.body = {
      pending: { error: 'authorization_pending', error_description: 'the user has not approved yet' },
      expired: { error: 'expired_token', error_description: 'the login request expired; start again' },
      denied: { error: 'access_denied', error_description: 'the user denied access' },
      unknown: { error: 'invalid_grant', error_description: 'unknown device code, or its redelivery window is over' },
    }[result.outcome];
  });

  return router;
}
