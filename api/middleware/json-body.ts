import type { Middleware } from 'koa';
import { koaBody } from 'koa-body';
import type { AppState } from '../context.ts';
import { DomainError } from '../../shared/errors.ts';
import { payloadTooLargeMessage } from './error-handler.ts';
import { refuseNulCharacters } from '../../shared/validation/json-shape.ts';

export const bodyLimits = {
  /** The spec's limit for post creation, where callers used to inline images. */
  posts: 50 * 1024 * 1024,
  /** Everything else: generous for JSON, far below the posts limit. */
  default: 1024 * 1024,
} as const;

function parseFailure(error: unknown): DomainError {
  const status = typeof error === 'object' && error !== null && 'status' in error ? error.status : undefined;
  if (status === 413) return new DomainError('payload_too_large', payloadTooLargeMessage, undefined, { cause: error });
  const reason = error instanceof Error ? error.message : String(error);
  return new DomainError('invalid_json', `the request body is not valid JSON (${reason})`, undefined, { cause: error });
}

/**
 * Parses a JSON body up to `limitBytes`. Every parsing failure (too large, malformed, a
 * forbidden `__proto__` key, a NUL character) becomes a 4xx here; a body in another format is refused with 415.
 */
export function jsonBody(limitBytes: number): Middleware<AppState> {
  const parse = koaBody({ json: true, jsonLimit: limitBytes, jsonStrict: true, urlencoded: false, text: false, multipart: false });
  return async (ctx, next) => {
    if (ctx.request.length > 0 && ctx.is('json') === false) {
      throw new DomainError('unsupported_media_type', 'send the body as JSON with Content-Type: application/json');
    }
    try {
      // Parse only: the handlers after this run outside the try, so their errors stay theirs.
      await parse(ctx, () => Promise.resolve());
    } catch (error) {
      throw parseFailure(error);
    }
    refuseNulCharacters(ctx.request.body, 'body');
    await next();
  };
}
