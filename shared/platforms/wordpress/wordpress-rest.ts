import type { Readable } from 'node:stream';
import type { ConnectionPolicy } from '../../net/connection-policy.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { platformRequest } from '../kit/platform-http.ts';
import type { WordpressCredential } from './credential.ts';
import { classifyWordpressRefusal, readWordpressError, wordpressErrorMessage } from './wordpress-errors.ts';

export const provider = 'wordpress';
export const serverName = 'the WordPress site';

/** One site and the user SPS signs in as there (HTTP Basic with an application password, on every call). */
export interface WordpressSession {
  /** The site's address with its folder, no trailing slash, as connect stored it. */
  site: string;
  credential: WordpressCredential;
}

export interface RestCall {
  method: 'GET' | 'POST' | 'DELETE';
  /** A REST route such as `/wp/v2/posts`. */
  route: string;
  query?: Record<string, string>;
  json?: unknown;
  /** A raw body (a media upload); send it only once the site's REST address is known (`discover`). */
  bytes?: { data: Readable; contentType: string; length: number };
  headers?: Record<string, string>;
  timeoutMs?: number;
}

/**
 * How a site's REST API is reached: `/wp-json/<route>` with pretty permalinks, `/?rest_route=
 * <route>` always (a site without pretty permalinks, or PHP's built-in server, has no rewrites).
 */
type RestStyle = 'pretty' | 'query';

function restUrl(site: string, style: RestStyle, call: RestCall): string {
  const url = new URL(style === 'pretty' ? `${site}/wp-json${call.route}` : `${site}/`);
  if (style === 'query') url.searchParams.set('rest_route', call.route);
  for (const [name, value] of Object.entries(call.query ?? {})) url.searchParams.set(name, value);
  return url.toString();
}

/**
 * An answer that is not WordPress's JSON, a 404 page or a redirect: the path is not the REST
 * API (without pretty permalinks WordPress answers /wp-json/… with a page or a canonical redirect).
 */
const isNotRest = (error: unknown): boolean => error instanceof PlatformError && error.httpStatus !== null
  && (error.httpStatus === 404 || (error.httpStatus >= 300 && error.httpStatus < 400))
  && readWordpressError(error.body) === null;

export function basicAuth(credential: WordpressCredential): string {
  return `Basic ${Buffer.from(`${credential.username}:${credential.applicationPassword}`).toString('base64')}`;
}

export type WordpressRest = ReturnType<typeof wordpressRest>;

/**
 * Calls to the site the user named, each over a pinned, policy-checked connection. The first
 * call to a site tries /wp-json/ and falls back to ?rest_route= when the site answers a page
 * instead; the way that worked is kept for the site's later calls.
 */
export function wordpressRest(options: { timeoutMs: number; userHosts: ConnectionPolicy }) {
  const styles = new Map<string, RestStyle>();

  function send(session: WordpressSession, style: RestStyle, call: RestCall, withHeaders: boolean): Promise<unknown> {
    return platformRequest({
      provider,
      serverName,
      method: call.method,
      url: restUrl(session.site, style, call),
      headers: { Authorization: basicAuth(session.credential), ...call.headers },
      ...(call.json === undefined ? {} : { json: call.json }),
      ...(call.bytes === undefined ? {} : { bytes: call.bytes }),
      timeoutMs: call.timeoutMs ?? options.timeoutMs,
      userHost: options.userHosts,
      errorMessage: wordpressErrorMessage,
      classify: classifyWordpressRefusal,
      ...(withHeaders ? { withStatus: true, readHeaders: ['x-wp-total'] } : {}),
    });
  }

  async function request(session: WordpressSession, call: RestCall, withHeaders: boolean): Promise<unknown> {
    const known = styles.get(session.site);
    if (known === 'query') return send(session, 'query', call, withHeaders);
    try {
      const answer = await send(session, 'pretty', call, withHeaders);
      styles.set(session.site, 'pretty');
      return answer;
    } catch (error) {
      // A streamed body is spent: only bodies that can be sent again fall back here.
      if (!isNotRest(error) || call.bytes !== undefined) throw error;
    }
    try {
      const answer = await send(session, 'query', call, withHeaders);
      styles.set(session.site, 'query');
      return answer;
    } catch (error) {
      if (!isNotRest(error)) throw error;
      const message = `no WordPress REST API answers at ${session.site} (tried /wp-json/ and ?rest_route=); `
        + 'check the site address';
      throw new PlatformError({ kind: 'permanent', provider, httpStatus: 404, message, cause: error });
    }
  }

  return {
    /** The parsed JSON answer of one REST call. */
    call: (session: WordpressSession, call: RestCall): Promise<unknown> => request(session, call, false),
    /** The answer with X-WP-Total, WordPress's count of every item a list would page through. */
    async callWithTotal(session: WordpressSession, call: RestCall): Promise<{ body: unknown; total: number | null }> {
      const answer = await request(session, call, true) as { body: unknown; headers: Record<string, string | null> };
      const total = Number(answer.headers['x-wp-total'] ?? Number.NaN);
      return { body: answer.body, total: Number.isInteger(total) ? total : null };
    },
    /** Learns how the site's REST API is reached, before a call whose body cannot be sent twice. */
    async discover(session: WordpressSession): Promise<void> {
      if (styles.has(session.site)) return;
      await request(session, { method: 'GET', route: '/wp/v2/users/me', query: { _fields: 'id' } }, false);
    },
  };
}
