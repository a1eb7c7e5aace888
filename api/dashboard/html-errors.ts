import type { Middleware } from 'koa';
import { classifyError } from '../middleware/error-handler.ts';
import type { ErrorCode } from '../../shared/errors.ts';
import { LogEvent } from '../../shared/logging/events.ts';
import { words, type PlainKey } from './i18n/translate.ts';
import { renderProblem } from './layout.ts';
import type { DashboardState } from './state.ts';

const titles: Partial<Record<number, PlainKey>> = {
  400: 'problem.badRequest',
  401: 'problem.notAllowed',
  403: 'problem.notAllowed',
  404: 'problem.notFound',
  409: 'problem.conflict',
  413: 'problem.tooLarge',
  429: 'problem.tooMany',
  503: 'problem.unavailable',
};

/** Where the code says more than the status: a link (OAuth state, pick, form link) that cannot serve. */
const codeTitles: Partial<Record<ErrorCode, PlainKey>> = {
  invalid_state: 'problem.unusableLink',
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
      const t = words(ctx);
      const serverFault = mapped.statusCode >= 500 && mapped.statusCode !== 503;
      const message = serverFault ? t('problem.serverFault') : sentence(mapped.message);
      const title = codeTitles[mapped.error] ?? titles[mapped.statusCode] ?? 'problem.generic';
      renderProblem(ctx, mapped.statusCode, t(title), message);
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
