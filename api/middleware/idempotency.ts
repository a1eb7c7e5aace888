import { createHash } from 'node:crypto';
import type { Middleware } from 'koa';
import { currentOrganization, type AppState } from '../context.ts';
import { DomainError } from '../../shared/errors.ts';
import type { IdempotencyStore } from './idempotency-store.ts';

export const idempotencyHeader = 'Idempotency-Key';

/** Visible ASCII, as the IETF draft's examples and Stripe's keys are; long enough for any UUID or hash. */
const keyPattern = /^[\x21-\x7e]{1,255}$/;

/** JSON with object keys sorted, so the same body sent with its keys in another order is the same request. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  // Parsed JSON holds no undefined or functions, so every leaf stringifies.
  return JSON.stringify(value);
}

/**
 * What a key is bound to: the method, the path and the body (its keys in any order). The MCP
 * server's create tools (api/mcp/) claim keys with the same fingerprint, so a call made through
 * MCP and the same request made over HTTP with the same key are one request.
 */
export function requestFingerprint(method: string, path: string, body: unknown): string {
  return createHash('sha256').update(`${method} ${path}\n${canonicalJson(body ?? null)}`).digest('hex');
}

/**
 * `Idempotency-Key` on a creating route: the first request with a key runs; a repeat with the same
 * method, path and body within 24 hours gets the first answer again (with `Idempotent-Replayed:
 * true`) and creates nothing; the key with another body answers 422; a repeat while the first is
 * still running answers 409. Only successful answers are kept: a refused request frees its key,
 * so the caller can correct the body and send it again under the same key.
 */
export function idempotency(store: IdempotencyStore, now: () => Date): Middleware<AppState> {
  return async (ctx, next) => {
    const key = ctx.get(idempotencyHeader);
    if (key === '') {
      await next();
      return;
    }
    if (!keyPattern.test(key)) {
      throw new DomainError('validation_failed', `${idempotencyHeader} must be 1 to 255 visible ASCII characters`, [
        { path: `header.${idempotencyHeader}`, message: 'must be 1 to 255 visible ASCII characters' },
      ]);
    }
    const fingerprint = requestFingerprint(ctx.method, ctx.path, ctx.request.body);
    const claim = await store.claim(currentOrganization(ctx).id, key, fingerprint, now().getTime());
    if (claim.kind === 'reused') {
      throw new DomainError('idempotency_key_reused', `this ${idempotencyHeader} was used with another request; `
        + 'send a new key for a new request');
    }
    if (claim.kind === 'running') {
      throw new DomainError('idempotency_request_running', `a request with this ${idempotencyHeader} is still `
        + 'running; ask again once it has answered');
    }
    if (claim.kind === 'replay') {
      ctx.status = claim.answer.status;
      ctx.body = claim.answer.body;
      ctx.set('Idempotent-Replayed', 'true');
      return;
    }
    try {
      await next();
    } catch (error) {
      await store.release(claim.claim);
      throw error;
    }
    const succeeded = ctx.status >= 200 && ctx.status < 300;
    if (succeeded) await store.remember(claim.claim, { status: ctx.status, body: ctx.body });
    else await store.release(claim.claim);
  };
}
