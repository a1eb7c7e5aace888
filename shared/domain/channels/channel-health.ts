/**
 * A channel's health: what SPS knows of its credentials, scopes, last publication and rate limit,
 * and what the user should do about it. Pure: the reads that gather the facts are in
 * channel-health-reads.ts, so the public API, the dashboard and the CLI answer from one rule set.
 */

export interface ChannelHealthFacts {
  channelId: string;
  provider: string;
  disabled: boolean;
  /** The platform refused the channel's credentials (channel-tokens.ts, publish-thread.ts failThread). */
  refreshNeeded: boolean;
  token: {
    expiresAt: Date | null;
    /** A refresh token is held and the platform has a way to renew the access token with it. */
    renewable: boolean;
    lastRefreshedAt: Date | null;
  };
  /**
   * What the platform's room asks for at connect (null: the platform has no OAuth scopes), and
   * what the platform granted (null: SPS did not record it).
   */
  scopes: { required: readonly string[] | null; granted: readonly string[] | null };
  lastPublish: LastPublish | null;
  /** The latest reset a platform's 429 delayed one of the channel's due posts to; null when none waits. */
  rateLimitedUntil: Date | null;
  /** Due posts of the channel whose publish job waits for a platform's rate-limit reset. */
  postsWaitingForRateLimit: number;
  now: Date;
}

export interface LastPublish {
  postId: string;
  state: 'PUBLISHED' | 'ERROR';
  at: Date;
  releaseURL: string | null;
  error: { code: 'unconfirmed' | 'publish_failed'; message: string } | null;
}

export type HealthAction =
  | { code: 'reconnect'; message: string }
  | { code: 'grant_scope'; message: string; scopes: string[] }
  | { code: 'wait_rate_limit'; message: string; until: Date }
  | { code: 'none'; message: string };

export type HealthStatus = 'healthy' | 'disabled' | 'needs_reconnect' | 'needs_scope' | 'rate_limited';

export interface ChannelHealth {
  channelId: string;
  provider: string;
  status: HealthStatus;
  disabled: boolean;
  refreshNeeded: boolean;
  token: { expiresAt: Date | null; expired: boolean; renewable: boolean; lastRefreshedAt: Date | null };
  scopes: { required: string[] | null; granted: string[] | null; missing: string[] | null };
  lastPublish: LastPublish | null;
  rateLimit: { limited: boolean; until: Date | null; postsWaiting: number };
  /** Most pressing first; `none` alone when there is nothing to do. */
  actions: HealthAction[];
}

function missingScopes(scopes: ChannelHealthFacts['scopes']): string[] | null {
  if (scopes.required === null || scopes.granted === null) return null;
  const granted = new Set(scopes.granted);
  return scopes.required.filter((scope) => !granted.has(scope));
}

function reconnectReason(facts: ChannelHealthFacts, expired: boolean): string | null {
  if (facts.refreshNeeded) return 'the platform refused the channel\'s credentials';
  if (expired && !facts.token.renewable) {
    return `its access token expired at ${facts.token.expiresAt?.toISOString() ?? ''} and cannot be renewed`;
  }
  return null;
}

function statusOf(actions: readonly HealthAction[], disabled: boolean): HealthStatus {
  const first = actions[0]?.code;
  if (first === 'reconnect') return 'needs_reconnect';
  if (first === 'grant_scope') return 'needs_scope';
  if (first === 'wait_rate_limit') return 'rate_limited';
  return disabled ? 'disabled' : 'healthy';
}

export function channelHealth(facts: ChannelHealthFacts): ChannelHealth {
  const { expiresAt } = facts.token;
  const expired = expiresAt !== null && expiresAt.getTime() <= facts.now.getTime();
  const missing = missingScopes(facts.scopes);
  const limitedUntil =
    facts.rateLimitedUntil !== null && facts.rateLimitedUntil.getTime() > facts.now.getTime()
      ? facts.rateLimitedUntil
      : null;

  const actions: HealthAction[] = [];
  const reason = reconnectReason(facts, expired);
  if (reason !== null) {
    actions.push({ code: 'reconnect', message: `Reconnect the channel: ${reason}.` });
  }
  if (missing !== null && missing.length > 0) {
    actions.push({
      code: 'grant_scope',
      message: `Reconnect the channel and grant the missing permissions: ${missing.join(', ')}.`,
      scopes: missing,
    });
  }
  // A channel that must be reconnected publishes nothing, so its rate limit is not what holds it up.
  if (limitedUntil !== null && reason === null) {
    actions.push({
      code: 'wait_rate_limit',
      message: `The platform is rate limiting this channel; SPS publishes its waiting posts after ${
        limitedUntil.toISOString()}.`,
      until: limitedUntil,
    });
  }
  if (actions.length === 0) {
    const message = facts.disabled ? 'The channel is disabled.' : 'Nothing to do: the channel can publish.';
    actions.push({ code: 'none', message });
  }

  return {
    channelId: facts.channelId,
    provider: facts.provider,
    status: statusOf(actions, facts.disabled),
    disabled: facts.disabled,
    refreshNeeded: facts.refreshNeeded,
    token: { expiresAt, expired, renewable: facts.token.renewable, lastRefreshedAt: facts.token.lastRefreshedAt },
    scopes: {
      required: facts.scopes.required === null ? null : [...facts.scopes.required],
      granted: facts.scopes.granted === null ? null : [...facts.scopes.granted],
      missing,
    },
    lastPublish: facts.lastPublish,
    rateLimit: { limited: limitedUntil !== null, until: limitedUntil, postsWaiting: facts.postsWaitingForRateLimit },
    actions,
  };
}

function clockTime(instant: Date): string {
  return `${instant.toISOString().slice(11, 16)} UTC`;
}

/** The health in a few words, as the dashboard's channel list shows it. */
export function healthInWords(health: ChannelHealth): string {
  switch (health.status) {
    case 'needs_reconnect':
      return 'Reconnect needed';
    case 'needs_scope':
      return 'Permissions missing';
    case 'rate_limited':
      return health.rateLimit.until === null
        ? 'Rate limited'
        : `Rate limited until ${clockTime(health.rateLimit.until)}`;
    case 'disabled':
      return 'Disabled';
    case 'healthy':
      return 'Healthy';
  }
}
