import type { Middleware } from 'koa';
import { koaBody } from 'koa-body';
import { DomainError } from '../../shared/errors.ts';
import { refuseNulCharacters } from '../../shared/validation/json-shape.ts';
import { words } from './i18n/translate.ts';
import type { DashboardState } from './state.ts';

/** Dashboard forms are small; nothing larger than this is a form of ours. */
const formLimit = '64kb';

/** Parses url-encoded form posts; other bodies stay unparsed (and so fail the CSRF check). */
export function formBody(): Middleware<DashboardState> {
  const parse = koaBody({ urlencoded: true, json: false, text: false, multipart: false, formLimit });
  return async (ctx, next) => {
    if (ctx.method === 'POST') {
      try {
        await parse(ctx, () => Promise.resolve());
      } catch (error) {
        throw new DomainError('validation_failed', words(ctx)('form.unreadable'), undefined, { cause: error });
      }
      refuseNulCharacters(ctx.request.body, 'form');
    }
    // The database can neither store nor search text with a NUL character: a 400 page, not a 500.
    refuseNulCharacters(ctx.query, 'query');
    await next();
  };
}

/** One text field of the posted form, trimmed; '' when absent or not a single value. */
export function formField(ctx: { request: { body?: unknown } }, name: string, options: { trim?: boolean } = {}): string {
  const body = ctx.request.body;
  if (typeof body !== 'object' || body === null) return '';
  const value: unknown = (body as Record<string, unknown>)[name];
  if (typeof value !== 'string') return '';
  return options.trim === false ? value : value.trim();
}

/** Every value of a field the form may repeat (checkboxes), trimmed; [] when absent. */
export function formValues(ctx: { request: { body?: unknown } }, name: string): string[] {
  const body = ctx.request.body;
  if (typeof body !== 'object' || body === null) return [];
  const value: unknown = (body as Record<string, unknown>)[name];
  const values: unknown[] = Array.isArray(value) ? value : [value];
  return values.filter((entry) => typeof entry === 'string').map((entry) => entry.trim());
}
