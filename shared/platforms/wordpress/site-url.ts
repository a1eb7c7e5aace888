import type { ConnectionPolicy } from '../../net/connection-policy.ts';
import { FetchFailure } from '../../net/fetch-failure.ts';
import { checkPinnedTarget } from '../../net/pinned-request.ts';
import { PlatformError } from '../kit/platform-error.ts';

const provider = 'wordpress';

/** Where users often copy the address from; the site is what comes before. */
const adminPaths = /\/(wp-json|wp-admin|wp-login\.php|index\.php|xmlrpc\.php)(\/.*)?$/;

/**
 * The site's root as the user typed it: origin plus the folder WordPress lives in (if any),
 * without a trailing slash, query or fragment. A bare host name gets https. The policy's refusals
 * (plain http, a private address literal) are made here, before anything is sent, so the user
 * reads why.
 */
export function wordpressSiteUrl(typed: string, policy: ConnectionPolicy): string {
  const text = typed.trim();
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch (error) {
    throw new PlatformError({ kind: 'permanent', provider, message: `"${text}" is not a web address`, cause: error });
  }
  try {
    checkPinnedTarget(url, policy);
  } catch (error) {
    if (!(error instanceof FetchFailure)) throw error;
    const message = `the WordPress site cannot be called at this address: ${error.message}`;
    throw new PlatformError({ kind: 'permanent', provider, message, cause: error });
  }
  const folder = url.pathname.replace(adminPaths, '').replace(/\/+$/, '');
  return `${url.origin}${folder}`;
}
