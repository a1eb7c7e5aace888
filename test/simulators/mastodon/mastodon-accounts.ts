import { randomUUID } from 'node:crypto';
import type { MastodonApps } from './mastodon-apps.ts';

/** Who a token speaks for, with what the token allows. */
export interface Account {
  id: string;
  username: string;
  scopes: readonly string[];
  /** Names the token in rate-limit buckets: Rack::Attack counts API calls per token, not per account. */
  tokenId: string;
}

/**
 * The instance's users and the tokens that speak for them: tokens handed to tests directly and
 * those issued through OAuth by the apps both resolve to one account id per username, as the
 * same person keeps one id across tokens on a real instance. Followers are kept here too, as
 * other users would make them.
 */
export class MastodonAccounts {
  readonly #byToken = new Map<string, Account>();
  readonly #idsByUsername = new Map<string, string>();
  readonly #followers = new Map<string, number>();
  readonly #apps: MastodonApps;

  constructor(apps: MastodonApps) {
    this.#apps = apps;
  }

  /** A token as Mastodon would have issued it; `read write` is what most apps ask for. */
  add(username: string, scopes: readonly string[] = ['read', 'write']): string {
    const token = randomUUID().replaceAll('-', '');
    this.#byToken.set(token, { id: this.#idOf(username), username, scopes, tokenId: randomUUID() });
    return token;
  }

  revoke(token: string): void {
    this.#byToken.delete(token);
  }

  setFollowers(username: string, count: number): void {
    this.#followers.set(this.#idOf(username), count);
  }

  /**
   * An account as the API shows it (Mastodon's Account entity, every field it always sends); the
   * statuses it has posted are the timeline's to count.
   */
  presentById(id: string, origin: string, statusesCount: number): Record<string, unknown> {
    const username = [...this.#idsByUsername].find(([, known]) => known === id)?.[0] ?? `user${id}`;
    const avatar = `${origin}/avatars/${id}.png`;
    const header = `${origin}/headers/original/missing.png`;
    return {
      id, username, acct: username, display_name: username, avatar, avatar_static: avatar, header,
      header_static: header, locked: false, bot: false, group: false, discoverable: true, indexable: false,
      created_at: '2024-01-01T00:00:00.000Z', note: '',
      url: `${origin}/@${username}`, uri: `${origin}/users/${username}`,
      emojis: [], fields: [],
      followers_count: this.#followers.get(id) ?? 0,
      following_count: 0,
      statuses_count: statusesCount,
    };
  }

  /** The account as verify_credentials shows it: the entity with what only its owner sees (source, role). */
  present(account: Account, origin: string, statusesCount: number): Record<string, unknown> {
    return {
      ...this.presentById(account.id, origin, statusesCount),
      source: { privacy: 'public', sensitive: false, language: null, note: '', fields: [], follow_requests_count: 0,
        indexable: false },
      role: { id: '-99', name: '', permissions: '0', color: '', highlighted: false },
    };
  }

  /** The account an `Authorization` header's Bearer token speaks for, or null. */
  fromAuthorization(authorization: string | undefined): Account | null {
    const token = /^Bearer (.+)$/.exec(authorization ?? '')?.[1];
    if (token === undefined) return null;
    const pasted = this.#byToken.get(token);
    if (pasted !== undefined) return pasted;
    const grant = this.#apps.grantOf(token);
    if (grant === null) return null;
    return { id: this.#idOf(grant.user), username: grant.user, scopes: grant.scopes, tokenId: token };
  }

  #idOf(username: string): string {
    const known = this.#idsByUsername.get(username);
    if (known !== undefined) return known;
    const id = String(this.#idsByUsername.size + 1);
    this.#idsByUsername.set(username, id);
    return id;
  }
}
