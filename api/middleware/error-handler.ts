import type { Middleware } from 'koa';
import { ZodError } from 'zod';
import type { AppState } from '../context.ts';
import { unavailableBackingService, writeMayHaveApplied } from '../../shared/backing-service-errors.ts';
import { DomainError, errorStatus, type ErrorCode, type ErrorDetail } from '../../shared/errors.ts';
import { LogEvent } from '../../shared/logging/events.ts';

export interface ErrorBody {
  statusCode: number;
  error: ErrorCode;
  message: string;
  details?: ErrorDetail[];
}

export const payloadTooLargeMessage =
  'PayloadTooLargeError: the request body is too large. Upload media first with POST /upload or /upload-from-url, then reference it in the post\'s image array by the returned id and path.';

function body(code: ErrorCode, message: string, details?: ErrorDetail[]): ErrorBody {
  return { statusCode: errorStatus[code], error: code, message, ...(details === undefined || details.length === 0 ? {} : { details }) };
}

export function zodDetails(error: ZodError): ErrorDetail[] {
  return error.issues.map((issue) => ({ path: issue.path.map(String).join('.'), message: issue.message }));
}

/** Errors made by http-errors carry a status and, for client errors, `expose`. */
interface HttpLikeError { status: number; expose?: boolean; message: string }
function isHttpLikeError(error: unknown): error is HttpLikeError {
  return error instanceof Error && typeof (error as Partial<HttpLikeError>).status === 'number';
}


/** Maps every failure to the contract's JSON error shape; the only place statuses are chosen. */
export function classifyError(error: unknown): ErrorBody {
  if (error instanceof DomainError) return body(error.code, error.message, error.details);
  if (error instanceof ZodError) {
    const details = zodDetails(error);
    const first = details[0];
    return body('validation_failed', first === undefined ? 'the request is invalid' : `${first.path === '' ? 'body' : first.path}: ${first.message}`, details);
  }
  // Koa's own client errors (ctx.throw, http-errors) that no middleware turned into a DomainError.
  if (isHttpLikeError(error) && error.status >= 400 && error.status < 500 && error.expose === true) {
    if (error.status === 413) return body('payload_too_large', payloadTooLargeMessage);
    if (error.status === 415) return body('unsupported_media_type', error.message);
    return body('validation_failed', error.message);
  }
  // A store that cannot be reached is not the caller's fault nor a bug: 503 with a code a client can retry on.
  const unavailable = unavailableBackingService(error);
  if (unavailable === 'database' && writeMayHaveApplied(error)) {
    const unsure = 'the database connection dropped while saving; it may have been saved: check before resending';
    return body('database_unavailable', unsure);
  }
  if (unavailable === 'database') return body('database_unavailable', 'the database is unreachable; try again shortly');
  if (unavailable === 'queue') return body('queue_unavailable', 'the queue (Redis) is unreachable; try again shortly');
  return body('internal_error', 'something went wrong on our side; the error was logged');
}

export function errorHandler(): Middleware<AppState> {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.body === undefined && ctx.status === 404) {
        ctx.status = 404;
        ctx.body = body('not_found', `no route for ${ctx.method} ${ctx.path}`);
      }
      if (ctx.body === undefined && ctx.status === 405) {
        ctx.body = body('method_not_allowed', `${ctx.path} does not take ${ctx.method}; it takes ${ctx.response.get('Allow')}`);
      }
      // The router answers 501 to a method no route uses (TRACE, PROPFIND): the caller's
      // choice, not a server fault, so it is a 405 like any other refused method.
      if (ctx.body === undefined && ctx.status === 501) {
        ctx.status = 405;
        const allowed = ctx.response.get('Allow');
        ctx.body = body(
          'method_not_allowed',
          `${ctx.path} does not take ${ctx.method}${allowed === '' ? '' : `; it takes ${allowed}`}`,
        );
      }
    } catch (error) {
      const mapped = classifyError(error);
      if (mapped.statusCode >= 500) {
        ctx.state.log.error({ event: LogEvent.requestFailed, err: error }, 'request failed');
      }
      ctx.status = mapped.statusCode;
      ctx.body = mapped;
    }
  };
}
