import type { Middleware } from 'koa';
import { classifyError } from '../middleware/error-handler.ts';
import { LogEvent } from '../../shared/logging/events.ts';
import { renderProblem } from './layout.ts';
import type { DashboardState } from './state.ts';

const titles: Record<number, string> = {
  400: 'Please check the form',
  401: 'Not allowed',
  403: 'Not allowed',
  404: 'Not found',
  409: 'Already exists',
  413: 'Too large',
  429: 'Too many attempts',
  503: 'Temporarily unavailable',
};

/**
 * Dashboard pages answer failures with a page a person can read, never the API's JSON: the
 * status is chosen by the same classification as the API's, and only server faults are logged.
 */
export function htmlErrors(): Middleware<DashboardState> {
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      const mapped = classifyError(error);
      if (mapped.statusCode >= 500) ctx.state.log.error({ event: LogEvent.requestFailed, err: error }, 'dashboard request failed');
      const message = mapped.statusCode >= 500 && mapped.statusCode !== 503 ? 'Something went wrong on our side. The error was logged; please try again.' : mapped.message;
      renderProblem(ctx, mapped.statusCode, titles[mapped.statusCode] ?? 'Something went wrong', sentence(message));
    }
  };
}

/** Domain messages are lower-case clauses; a page shows them as sentences. */
export function sentence(message: string): string {
  const text = message.charAt(0).toUpperCase() + message.slice(1);
  return /[.!?]$/.test(text) ? text : `${text}.`;
}
