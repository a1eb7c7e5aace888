import type { Middleware } from 'koa';
import { classifyError } from '../middleware/error-handler.ts';
import type { ErrorCode } from '../../shared/errors.ts';
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

/** Where the code says more than the status: a link (OAuth state, pick, form link) that cannot serve. */
const codeTitles: Partial<Record<ErrorCode, string>> = {
  invalid_state: 'This link cannot be used',
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
      const title = codeTitles[mapped.error] ?? titles[mapped.statusCode] ?? 'Something went wrong';
      renderProblem(ctx, mapped.statusCode, title, sentence(message));
    }
  };
}

/**
 * A first word that is a plain word (letters, with inner hyphens or apostrophes, then at most a
 * comma, colon or semicolon): "the", "don't", "two-factor". A URL, a host, a field path, an
 * identifier or a quoted value is not, and is shown as written.
 */
const plainFirstWord = /^[a-z]+(?:['-][a-z]+)*[,:;]?(?:\s|$)/;

/**
 * Domain messages are lower-case clauses; a page shows them as sentences. One that starts with
 * a URL or code ("http://localhost:8080 did not answer", "settings.title: ...") keeps its first
 * word as written: "Http://" would be wrong, and so would a field the caller must type exactly.
 */
export function sentence(message: string): string {
  const text = plainFirstWord.test(message) ? message.charAt(0).toUpperCase() + message.slice(1) : message;
  return /[.!?]$/.test(text) ? text : `${text}.`;
}
