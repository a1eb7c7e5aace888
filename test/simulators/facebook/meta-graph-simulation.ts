import { randomBytes } from 'node:crypto';
import { formBody, type SimulatedAnswer, type SimulatedRequest } from '../kit/simulator-server.ts';

/**
 * Habits every simulated Meta Graph host shares (graph.facebook.com, graph.instagram.com,
 * graph.threads.net): the error envelope, where a token may travel, versioned paths, and the
 * book of tokens Meta issues outside the OAuth token endpoint (long-lived user tokens, Page
 * tokens). The Facebook, Instagram, Instagram Login and Threads simulators build on it.
 * Facts: ../shared/platforms/oauth-majors.md, sections 3.5, 5.1 and 6.1.
 */

/**
 * Meta answers most refusals with HTTP 400 and `{error: {message, type, code, fbtrace_id}}`;
 * `is_transient: true` joins them when Meta says trying again may work. Every refusal has a type.
 */
export function graphError(
  message: string,
  code: number,
  extra: { status?: number; subcode?: number; type?: string; transient?: boolean } = {},
): SimulatedAnswer {
  const error: Record<string, unknown> = { message, type: extra.type ?? 'OAuthException', code };
  if (extra.subcode !== undefined) error.error_subcode = extra.subcode;
  if (extra.transient === true) error.is_transient = true;
  error.fbtrace_id = randomBytes(8).toString('base64url');
  return { status: extra.status ?? 400, body: { error } };
}

export const unparsableToken = (): SimulatedAnswer =>
  graphError('Invalid OAuth access token - Cannot parse access token', 190);

export const expiredToken = (at: number): SimulatedAnswer =>
  graphError(`Error validating access token: Session has expired on ${new Date(at).toUTCString()}.`, 190, {
    subcode: 463,
  });

/** Graph's timestamps: `2026-11-21T10:00:00+0000`. */
export function graphTime(at: number): string {
  return new Date(at).toISOString().replace(/\.\d{3}Z$/, '+0000');
}

/**
 * Graph's refusal of an object it does not have, or hides from this token (400, code 100,
 * subcode 33), for a read (`get`), a write on it (`post`) or its deletion.
 */
export const unsupportedRequest = (id: string, verb: 'get' | 'post' | 'delete' = 'get'): SimulatedAnswer => graphError(
  `Unsupported ${verb} request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, `
    + 'or does not support this operation.',
  100,
  { subcode: 33, type: 'GraphMethodException' },
);

/** Graph takes a parameter from the query or, on a POST, from the form body. */
export function graphParameters(request: SimulatedRequest): URLSearchParams {
  const merged = new URLSearchParams(request.query);
  if (request.method === 'POST') {
    for (const [name, value] of formBody(request)) if (!merged.has(name)) merged.set(name, value);
  }
  return merged;
}

/**
 * Graph reads the token from `access_token` (the query, or `parameters` with the form's too) or
 * an `Authorization: Bearer|OAuth` header.
 */
export function graphToken(request: SimulatedRequest, parameters: URLSearchParams = request.query): string | null {
  const fromQuery = parameters.get('access_token');
  if (fromQuery !== null && fromQuery !== '') return fromQuery;
  const header = /^(?:Bearer|OAuth) (.+)$/i.exec(request.headers.authorization ?? '');
  return header?.[1] ?? null;
}

/** Splits `/v26.0/me/accounts` into its version and the rest; Graph serves unversioned paths too. */
export function graphPath(path: string): { version: string | null; rest: string } {
  const match = /^\/v\d+\.\d+(?=\/)/.exec(path);
  if (match === null) return { version: null, rest: path };
  return { version: match[0].slice(1), rest: path.slice(match[0].length) };
}

export const unknownPath = (request: SimulatedRequest): SimulatedAnswer =>
  graphError(`Unknown path components: ${request.path}`, 2500);

/**
 * The fields a Graph call asks for, top level only: `a,b{c,d},e.type(large)` gives a, b and e,
 * with `b`'s sub-fields kept for the caller.
 */
export function requestedFields(request: SimulatedRequest): Map<string, string[]> {
  const text = request.query.get('fields') ?? '';
  const fields = new Map<string, string[]>();
  let depth = 0;
  let current = '';
  const flush = () => {
    const match = /^([a-z_]+)(?:\.[a-z_]+\([^)]*\))*(?:\{(.*)\})?$/.exec(current.trim());
    if (match?.[1] !== undefined) fields.set(match[1], (match[2] ?? '').split(',').filter((field) => field !== ''));
    current = '';
  };
  for (const character of text) {
    if (character === ',' && depth === 0) { flush(); continue; }
    if (character === '{') depth += 1;
    if (character === '}') depth -= 1;
    current += character;
  }
  flush();
  return fields;
}

/** Keeps the requested fields of a node (`id` always, as Graph does). */
export function pickFields(node: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  const picked: Record<string, unknown> = { id: node.id };
  for (const field of fields) if (node[field] !== undefined) picked[field] = node[field];
  return picked;
}

export interface BookedToken {
  user: string;
  /** Epoch ms; null for tokens that do not expire (Page tokens made from a long-lived user token). */
  expiresAt: number | null;
  issuedAt: number;
  kind: string;
}

/**
 * Tokens a Meta host issues by trading others (long-lived user tokens, Page tokens), on the
 * same clock as the simulator's OAuthAuthority so tests can move time for both.
 */
export class MetaTokenBook {
  readonly #tokens = new Map<string, BookedToken>();
  readonly #clock: () => number;

  constructor(clock: () => number) {
    this.#clock = clock;
  }

  issue(user: string, kind: string, seconds: number | null): string {
    const token = `${kind}-${randomBytes(16).toString('hex')}`;
    const now = this.#clock();
    this.#tokens.set(token, { user, kind, issuedAt: now, expiresAt: seconds === null ? null : now + seconds * 1000 });
    return token;
  }

  /** The booked token if it is still valid, `expired` once its time passed, null if never issued. */
  lookup(token: string | null): BookedToken | 'expired' | null {
    const booked = token === null ? undefined : this.#tokens.get(token);
    if (booked === undefined) return null;
    return booked.expiresAt !== null && booked.expiresAt <= this.#clock() ? 'expired' : booked;
  }

  expiryOf(token: string): number | null {
    return this.#tokens.get(token)?.expiresAt ?? null;
  }

  now(): number {
    return this.#clock();
  }
}

/** How Instagram Login and Threads trade their tokens on the API host, each with its own grant names. */
export interface LongLivedLoginRules {
  exchangeGrant: string;
  refreshGrant: string;
  clientSecret: string;
  /** 60 days on both platforms. */
  longLivedSeconds: number;
  /** A token is refreshed only once it is this old (a day on both platforms). */
  refreshAfterSeconds: number;
  /** The user a short-lived token (from the OAuth token endpoint) acts for, or null. */
  shortLivedUser: (token: string | null) => string | null;
  book: MetaTokenBook;
}

/** The user behind a short- or long-lived token, or Graph's refusal of it. */
export function userBehind(
  token: string | null,
  rules: Pick<LongLivedLoginRules, 'shortLivedUser' | 'book'>,
): string | SimulatedAnswer {
  const shortLived = rules.shortLivedUser(token);
  if (shortLived !== null) return shortLived;
  const booked = rules.book.lookup(token);
  if (booked === 'expired') return expiredToken(token === null ? 0 : rules.book.expiryOf(token) ?? 0);
  return booked === null ? unparsableToken() : booked.user;
}

/**
 * GET /access_token (short-lived → long-lived, with the app secret) and GET
 * /refresh_access_token (long-lived → new long-lived, at least a day old and not expired);
 * undefined for any other path.
 */
export function longLivedLoginRoute(
  request: SimulatedRequest,
  rules: LongLivedLoginRules,
): SimulatedAnswer | undefined {
  const issue = (user: string): SimulatedAnswer => {
    const token = rules.book.issue(user, 'long', rules.longLivedSeconds);
    return { status: 200, body: { access_token: token, token_type: 'bearer', expires_in: rules.longLivedSeconds } };
  };
  const grant = request.query.get('grant_type');
  if (request.path === '/access_token' && request.method === 'GET') {
    if (grant !== rules.exchangeGrant) return graphError(`Unsupported grant_type: ${grant ?? '(none)'}`, 100);
    if (request.query.get('client_secret') !== rules.clientSecret) {
      return graphError('Error validating client secret.', 1);
    }
    const user = rules.shortLivedUser(request.query.get('access_token'));
    return user === null ? unparsableToken() : issue(user);
  }
  if (request.path === '/refresh_access_token' && request.method === 'GET') {
    if (grant !== rules.refreshGrant) return graphError(`Unsupported grant_type: ${grant ?? '(none)'}`, 100);
    const token = request.query.get('access_token');
    const booked = rules.book.lookup(token);
    if (booked === null) return unparsableToken();
    if (booked === 'expired') return expiredToken(token === null ? 0 : rules.book.expiryOf(token) ?? 0);
    if (rules.book.now() - booked.issuedAt < rules.refreshAfterSeconds * 1000) {
      return graphError('The access token must be at least 24 hours old to be refreshed.', 100);
    }
    return issue(booked.user);
  }
  return undefined;
}
