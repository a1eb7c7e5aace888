import Router from '@koa/router';
import { koaBody } from 'koa-body';
import type { AppState } from '../context.ts';
import type { SecretBox } from '../../shared/crypto/secret-box.ts';
import type { Database } from '../../shared/db/database.ts';
import { registerClient, RegistrationError } from '../../shared/domain/oauth/client-registration.ts';
import { LogEvent } from '../../shared/logging/events.ts';
import { clientAddressKey } from '../../shared/net/client-address-key.ts';
import type { RedisConnection } from '../../shared/queue/redis.ts';
import { FixedWindowLimiter } from '../middleware/fixed-window-limiter.ts';

/** Where clients register, under the backend like the token endpoint; the metadata names it. */
export const registrationPath = '/api/oauth/register';

export interface RegistrationLimits {
  /** Registrations per client address in a window: anyone may register, so each address is capped. */
  perAddress: number;
  windowSeconds: number;
}

/** An MCP client registers once per install; 20 an hour leaves room for retries and a shared NAT. */
export const defaultRegistrationLimits: RegistrationLimits = { perAddress: 20, windowSeconds: 60 * 60 };

interface RegistrationDeps {
  db: Database;
  secrets: SecretBox;
  redis: RedisConnection;
  queuePrefix: string;
  now: () => Date;
}

/**
 * POST /api/oauth/register (RFC 7591): JSON client metadata in, 201 with the client's id out.
 * Unauthenticated by design (an MCP client has nothing yet), so every attempt, good or bad,
 * counts against its address's budget. Errors use RFC 7591's `{error, error_description}`, like
 * the token endpoint uses RFC 6749's, since OAuth client libraries read that shape.
 */
export function registrationRouter(
  deps: RegistrationDeps,
  limits: RegistrationLimits = defaultRegistrationLimits,
): Router<AppState> {
  const router = new Router<AppState>();
  const limiter = new FixedWindowLimiter(deps.redis, {
    limit: limits.perAddress, windowSeconds: limits.windowSeconds, keyPrefix: `${deps.queuePrefix}:oauth-register`,
  });
  const parse = koaBody({ json: true, urlencoded: false, multipart: false, text: false, jsonLimit: '16kb' });
  router.post(registrationPath, async (ctx) => {
    // The answer may carry a client secret: nothing between the client and us may keep it.
    ctx.set('Cache-Control', 'no-store');
    const decision = await limiter.hit(deps.secrets.digest(`oauth-register:${clientAddressKey(ctx.ip)}`));
    if (!decision.allowed) {
      ctx.state.log.warn({ event: LogEvent.clientThrottled, what: 'oauth registration', address: ctx.ip },
        'throttled: oauth registration');
      ctx.status = 429;
      ctx.set('Retry-After', String(decision.resetSeconds));
      ctx.body = { error: 'too_many_requests', error_description: 'too many client registrations from this address' };
      return;
    }
    try {
      if (!ctx.is('application/json')) {
        const expected = 'the body must be JSON (Content-Type: application/json)';
        throw new RegistrationError('invalid_client_metadata', expected);
      }
      try {
        await parse(ctx, () => Promise.resolve());
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new RegistrationError('invalid_client_metadata', `the body could not be read (${reason})`);
      }
      const client = await registerClient(deps.db, deps.secrets, ctx.request.body, deps.now());
      ctx.state.log.info({
        event: LogEvent.oauthClientRegistered, clientId: client.client_id,
        authMethod: client.token_endpoint_auth_method,
      }, 'an OAuth client registered itself');
      ctx.status = 201;
      ctx.body = client;
    } catch (error) {
      if (!(error instanceof RegistrationError)) throw error;
      ctx.status = 400;
      ctx.body = { error: error.code, error_description: error.message };
    }
  });
  return router;
}
