import type { Middleware } from 'koa';
import { koaBody } from 'koa-body';
import type { AppState } from '../context.ts';
import { DomainError } from '../../shared/errors.ts';

export const bodyLimits = {
  /** The spec's limit for post creation, where callers used to inline images. */
  posts: 50 * 1024 * 1024,
  /** Everything else: generous for JSON, far below the posts limit. */
  default: 1024 * 1024,
} as const;

/** Parses a JSON body up to `limitBytes`; a body in any other format is refused with 415. */
export function jsonBody(limitBytes: number): Middleware<AppState> {
  const parse = koaBody({ json: true, jsonLimit: limitBytes, jsonStrict: true, urlencoded: false, text: false, multipart: false });
  return async (ctx, next) => {
    if (ctx.request.length > 0 && ctx.is('json') === false) {
      throw new DomainError('unsupported_media_type', 'send the body as JSON with Content-Type: application/json');
    }
    await parse(ctx, next);
  };
}
