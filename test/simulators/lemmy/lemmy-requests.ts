import { bearerToken, jsonBody, type SimulatedAnswer, type SimulatedRequest } from '../kit/simulator-server.ts';
import type { LemmyState, SimulatedLemmyUser } from './lemmy-state.ts';

/**
 * How Lemmy 0.19 reads a request: actix's JSON extractor (a JSON content type, required fields,
 * plain-text "Json deserialize error" refusals) and its session middleware (a bearer JWT checked
 * against the login tokens it handed out). Refusals are `{"error": "<snake_case>"}`: 400, or 404
 * for a row the database does not have (open-and-community.md 7.5).
 */

export function lemmyError(status: number, error: string): SimulatedAnswer {
  return { status, body: { error } };
}

export type Fields = Record<string, unknown>;

type FieldType = 'string' | 'integer' | 'boolean';

/** A JSON body with the required fields in place and every given field of its declared type. */
export function readJson(
  request: SimulatedRequest,
  types: Record<string, FieldType>,
  required: readonly string[],
): { fields: Fields } | { refusal: SimulatedAnswer } {
  if (!(request.headers['content-type'] ?? '').startsWith('application/json')) {
    return { refusal: { status: 400, body: 'Content type error' } };
  }
  const body = jsonBody(request);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { refusal: { status: 400, body: 'Json deserialize error: expected a map' } };
  }
  const fields = body as Fields;
  for (const name of required) {
    if (fields[name] === undefined) {
      return { refusal: { status: 400, body: `Json deserialize error: missing field \`${name}\`` } };
    }
  }
  for (const [name, type] of Object.entries(types)) {
    const value = fields[name];
    if (value === undefined || value === null) continue;
    const fits = type === 'integer' ? Number.isInteger(value) : typeof value === type;
    if (!fits) {
      const message = `Json deserialize error: invalid type for \`${name}\`, expected ${type}`;
      return { refusal: { status: 400, body: message } };
    }
  }
  return { fields };
}

/**
 * The signed-in user: null without a token (anonymous); a token the instance no longer honours
 * (logged out, password changed) is refused outright, even on endpoints open to anyone.
 */
export function viewer(
  state: LemmyState,
  request: SimulatedRequest,
): { user: SimulatedLemmyUser | null } | { refusal: SimulatedAnswer } {
  const token = bearerToken(request);
  if (token === null) return { user: null };
  const user = state.sessions.get(token);
  return user === undefined ? { refusal: lemmyError(400, 'not_logged_in') } : { user };
}

/** The signed-in user, for endpoints that need one. */
export function signedIn(
  state: LemmyState,
  request: SimulatedRequest,
): { user: SimulatedLemmyUser } | { refusal: SimulatedAnswer } {
  const seen = viewer(state, request);
  if ('refusal' in seen) return seen;
  return seen.user === null ? { refusal: lemmyError(400, 'not_logged_in') } : { user: seen.user };
}

/** An integer query parameter, or null when absent; NaN when it is not one. */
export function integerQuery(request: SimulatedRequest, name: string): number | null {
  const value = request.query.get(name);
  if (value === null) return null;
  return /^\d+$/.test(value) ? Number(value) : Number.NaN;
}

/** Lemmy counts characters as Rust's `chars()`: Unicode code points. */
export const codePoints = (text: string): number => Array.from(text).length;
