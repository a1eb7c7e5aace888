import { trailingSlashes } from '../../net/trailing-slashes.ts';
/**
 * Which stored channel is "the same platform account" as one a connect flow just read.
 *
 * On a platform with fixed hosts the platform's own account id is enough. On a server the user
 * names (Mastodon, Lemmy, WordPress, Listmonk, a Bluesky PDS) it is not: any server can answer
 * `verify_credentials` with any id, so an attacker's server could claim a victim's id and take
 * over the victim's channel. There the account is its id on its server: the server is part of the
 * identity, and a connect never moves a channel from one server to another.
 */

/** What identifies an account: the platform's id and the server it lives on (null: the platform's fixed hosts). */
export interface AccountIdentity {
  accountId: string | null;
  instanceUrl: string | null;
}

/**
 * The server an `instanceUrl` names, normalised so that spellings of one server compare equal:
 * scheme and host in lower case, default port dropped, no trailing slash, query or fragment. The
 * path stays, since a WordPress site in a folder is its own site. Channels stored by older code
 * went through the same normalisation on the way in, but this keeps them matching if they did not.
 */
export function accountServer(instanceUrl: string | null): string | null {
  if (instanceUrl === null) return null;
  // Not a URL (hand-edited data): compared as stored, so it matches only itself.
  if (!URL.canParse(instanceUrl)) return instanceUrl;
  const url = new URL(instanceUrl);
  return `${url.origin}${url.pathname.replace(trailingSlashes, '')}`;
}

export function sameServer(stored: AccountIdentity, connected: AccountIdentity): boolean {
  return accountServer(stored.instanceUrl) === accountServer(connected.instanceUrl);
}

/** The same account on the same server; a stored channel without a recorded account id matches none. */
export function sameAccount(stored: AccountIdentity, connected: AccountIdentity): boolean {
  return stored.accountId !== null && stored.accountId === connected.accountId && sameServer(stored, connected);
}
