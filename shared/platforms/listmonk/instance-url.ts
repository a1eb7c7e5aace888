import type { ConnectionPolicy } from '../../net/connection-policy.ts';
import { FetchFailure } from '../../net/fetch-failure.ts';
import { checkPinnedTarget } from '../../net/pinned-request.ts';
import { PlatformError } from '../kit/platform-error.ts';

const provider = 'listmonk';

/** Where users often copy the address from: the admin app or an API URL. */
const appPaths = /\/(admin|api)(\/.*)?$/;

/**
 * The instance's root as the user typed it: origin plus the folder a reverse proxy serves it
 * under (if any), without a trailing slash, query or fragment. A bare host name gets https. The
 * policy's refusals (plain http, a private address literal) are made here, before anything is
 * sent, so the user reads why.
 */
export function listmonkInstanceUrl(typed: string, policy: ConnectionPolicy): string {
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
    const message = `the listmonk instance cannot be called at this address: ${error.message}`;
    throw new PlatformError({ kind: 'permanent', provider, message, cause: error });
  }
  const folder = url.pathname.replace(appPaths, '').replace(/\/+$/, '');
  return `${url.origin}${folder}`;
}
