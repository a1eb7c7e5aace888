import type { ConnectionPolicy } from '../../net/connection-policy.ts';
import { FetchFailure } from '../../net/fetch-failure.ts';
import { checkPinnedTarget } from '../../net/pinned-request.ts';
import { PlatformError } from './platform-error.ts';
import { trailingSlashes } from '../../net/trailing-slashes.ts';

export interface ServerUrlOptions {
  provider: string;
  /** How messages name the server: "the WordPress site". */
  serverName: string;
  /**
   * Trailing paths users copy by mistake (an admin page, an API URL); what comes before them is
   * the folder the server lives in. Without it only the origin is kept.
   */
  strip?: RegExp;
}

/**
 * A server address the user typed (a Mastodon instance, a WordPress site...), normalized: a bare
 * host gets https; no trailing slash, query or fragment. The policy's refusals (plain http, a
 * private address literal) are made here, before anything is sent, so the user reads why; a name
 * that resolves to a private address is refused on every connection (platformRequest's
 * `userHost`), so one that changes address later is refused too.
 */
export function userServerUrl(typed: string, policy: ConnectionPolicy, options: ServerUrlOptions): string {
  const { provider, serverName } = options;
  const text = typed.trim();
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch (error) {
    throw new PlatformError({ kind: 'permanent', provider, message: `"${text}" is not a web address`, cause: error });
  }
  if (url.username !== '' || url.password !== '') {
    throw new PlatformError({
      kind: 'permanent',
      provider,
      message: 'the address must not carry a user name or password',
    });
  }
  try {
    checkPinnedTarget(url, policy);
  } catch (error) {
    if (!(error instanceof FetchFailure)) throw error;
    const message = `${serverName} cannot be called at this address: ${error.message}`;
    throw new PlatformError({ kind: 'permanent', provider, message, cause: error });
  }
  const folder = options.strip === undefined
    ? ''
    : url.pathname.replace(options.strip, '').replace(trailingSlashes, '');
  return `${url.origin}${folder}`;
}
