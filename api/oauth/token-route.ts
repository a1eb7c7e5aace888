import Router from '@koa/router';
import { koaBody } from 'koa-body';
import { z } from 'zod';
import type { AppState } from '../context.ts';
import type { SecretBox } from '../../shared/crypto/secret-box.ts';
import type { CacheInvalidation } from '../../shared/cache/invalidation-bus.ts';
import type { Database } from '../../shared/db/database.ts';
import { exchangeCode, type TokenRequest } from '../../shared/domain/oauth/authorization.ts';
import { OAuthError } from '../../shared/domain/oauth/oauth-error.ts';
import { LogEvent } from '../../shared/logging/events.ts';
import { withClientCredentials } from './client-authentication.ts';

/** Any object: each field is checked where it is used, so a missing one names itself in the error. */
const tokenBody = z.record(z.string(), z.unknown()).catch({});

/**
 * POST /api/oauth/token: the spec's JSON body, form-encoded too (RFC 6749's own encoding), with
 * the client's credentials in the body or in an HTTP Basic header (client-authentication.ts).
 * Errors use RFC 6749's `{error, error_description}`, not the public API's error shape.
 */
export function oauthTokenRouter(
  deps: { db: Database; secrets: SecretBox; caches: CacheInvalidation; now: () => Date },
): Router<AppState> {
  const router = new Router<AppState>();
  const parse = koaBody({ json: true, urlencoded: true, multipart: false, text: false, jsonLimit: '64kb', formLimit: '64kb' });
  router.post('/api/oauth/token', async (ctx) => {
    // Tokens must never be cached by anything between the app and us (RFC 6749 §5.1).
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Pragma', 'no-cache');
    try {
      try {
        await parse(ctx, () => Promise.resolve());
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new OAuthError('invalid_request', `the body could not be read (${reason})`);
      }
      const body: TokenRequest = tokenBody.parse(ctx.request.body);
      const request = withClientCredentials(ctx.get('Authorization'), body);
      ctx.body = await exchangeCode(deps.db, deps.secrets, deps.caches, request, deps.now());
    } catch (error) {
      if (!(error instanceof OAuthError)) throw error;
      if (error.reusedCode !== null) {
        // RFC 6749 §10.5: a replayed code may mean it leaked; the operator should hear of it.
        const { revokedTokens } = error.reusedCode;
        const event = LogEvent.oauthCodeReused;
        ctx.state.log.warn({ event, revokedTokens }, 'an OAuth code was used again; its token is revoked');
      }
      ctx.status = error.status;
      if (error.code === 'invalid_client') ctx.set('WWW-Authenticate', 'Basic realm="sps"');
      ctx.body = { error: error.code, error_description: error.message };
    }
  });
  return router;
}
