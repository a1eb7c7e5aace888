import { formBody, jsonBody, type SimulatedAnswer, type SimulatedRequest } from '../kit/simulator-server.ts';

/**
 * How the Web API answers: HTTP 200 with `{ok: true, ...}`, or HTTP 200 with `{ok: false, error:
 * "<code>"}` for every refusal but throttling, which is HTTP 429 with `Retry-After` (seconds) and
 * `{ok: false, error: "ratelimited"}` (open-and-community.md 9.5).
 */
export const slackOk = (body: Record<string, unknown>): SimulatedAnswer =>
  ({ status: 200, body: { ok: true, ...body } });

export const slackRefused = (error: string, extra: Record<string, unknown> = {}): SimulatedAnswer =>
  ({ status: 200, body: { ok: false, error, ...extra } });

export const slackRateLimited = (retryAfterSeconds: number): SimulatedAnswer => ({
  status: 429,
  headers: { 'retry-after': String(retryAfterSeconds) },
  body: { ok: false, error: 'ratelimited' },
});

/** Methods that read a JSON body; the others ignore one, as Slack does (their arguments then go missing). */
const jsonMethods = new Set(['chat.postMessage', 'conversations.join', 'files.completeUploadExternal']);

/**
 * A method's arguments: the query string, a form body and, for the methods that take one, a
 * JSON body, merged as Slack reads them. JSON values keep their types (booleans, arrays).
 */
export function methodArguments(request: SimulatedRequest, method: string): Record<string, unknown> {
  const found: Record<string, unknown> = Object.fromEntries(request.query);
  const type = request.headers['content-type'] ?? '';
  if (request.method === 'POST' && type.startsWith('application/x-www-form-urlencoded')) {
    Object.assign(found, Object.fromEntries(formBody(request)));
  }
  if (request.method === 'POST' && type.startsWith('application/json') && jsonMethods.has(method)) {
    const body = jsonBody(request);
    if (typeof body === 'object' && body !== null && !Array.isArray(body)) Object.assign(found, body);
  }
  return found;
}

/** A text argument; numbers and booleans sent in JSON read as their text, as Slack coerces them. */
export function textArgument(values: Record<string, unknown>, name: string): string | null {
  const value = values[name];
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return null;
}

export function booleanArgument(values: Record<string, unknown>, name: string): boolean | null {
  const value = values[name];
  if (typeof value === 'boolean') return value;
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  return null;
}

/** Offset paging behind an opaque-looking cursor, as Slack's `next_cursor` is opaque to clients. */
export function readCursor(values: Record<string, unknown>): number | null {
  const cursor = textArgument(values, 'cursor');
  if (cursor === null || cursor === '') return 0;
  const match = /^dGVhbTpD(\d+)$/.exec(cursor);
  return match === null ? null : Number(match[1]);
}

export const writeCursor = (offset: number): string => `dGVhbTpD${String(offset)}`;

/** One page of `items` from the request's cursor and limit (Slack caps limits at 999 and defaults to 100). */
export function page<T>(
  items: readonly T[],
  values: Record<string, unknown>,
  defaultLimit = 100,
): { items: T[]; nextCursor: string } | null {
  const start = readCursor(values);
  if (start === null) return null;
  const limit = Math.min(Math.max(Number(textArgument(values, 'limit') ?? defaultLimit) || defaultLimit, 1), 999);
  const next = start + limit < items.length ? writeCursor(start + limit) : '';
  return { items: items.slice(start, start + limit), nextCursor: next };
}
