import { describe, expect, it } from 'vitest';
import { channelHealth, healthInWords, type ChannelHealthFacts } from './channel-health.ts';

const now = new Date('2026-03-01T10:00:00Z');

function facts(overrides: Partial<ChannelHealthFacts> = {}): ChannelHealthFacts {
  return {
    channelId: 'c1',
    provider: 'x',
    disabled: false,
    refreshNeeded: false,
    token: { expiresAt: null, renewable: true, lastRefreshedAt: null },
    scopes: { required: ['tweet.read', 'tweet.write', 'media.write'], granted: null },
    lastPublish: null,
    rateLimitedUntil: null,
    postsWaitingForRateLimit: 0,
    now,
    ...overrides,
  };
}

/**
 * The judgement alone, for the cases the stack cannot produce yet: no platform's connect step
 * records granted scopes, so `grant_scope` comes only from facts given here.
 */
describe('channelHealth', () => {
  it('asks for the required scopes the platform did not grant', () => {
    const health = channelHealth(facts({
      scopes: { required: ['tweet.read', 'tweet.write', 'media.write'], granted: ['tweet.read'] },
    }));
    expect(health.status).toBe('needs_scope');
    expect(health.scopes.missing).toEqual(['tweet.write', 'media.write']);
    expect(health.actions).toEqual([{
      code: 'grant_scope',
      message: 'Reconnect the channel and grant the missing permissions: tweet.write, media.write.',
      scopes: ['tweet.write', 'media.write'],
    }]);
    expect(healthInWords(health)).toBe('Permissions missing');
  });

  it('leaves missing scopes unknown (null) when granted ones were not recorded, and null for platforms without', () => {
    expect(channelHealth(facts()).scopes.missing).toBeNull();
    const noScopes = channelHealth(facts({ scopes: { required: null, granted: null } }));
    expect(noScopes.scopes).toEqual({ required: null, granted: null, missing: null });
    expect(noScopes.actions).toEqual([{ code: 'none', message: 'Nothing to do: the channel can publish.' }]);
  });

  it('does not ask to reconnect for an expired token SPS can renew', () => {
    const expiresAt = new Date(now.getTime() - 1);
    const health = channelHealth(facts({ token: { expiresAt, renewable: true, lastRefreshedAt: null } }));
    expect(health.token.expired).toBe(true);
    expect(health.status).toBe('healthy');
  });

  it('puts reconnecting first and drops the rate limit of a channel that cannot publish anyway', () => {
    const until = new Date(now.getTime() + 60_000);
    const health = channelHealth(facts({
      refreshNeeded: true,
      scopes: { required: ['a', 'b'], granted: ['a'] },
      rateLimitedUntil: until,
      postsWaitingForRateLimit: 2,
    }));
    expect(health.actions.map((action) => action.code)).toEqual(['reconnect', 'grant_scope']);
    expect(health.status).toBe('needs_reconnect');
  });

  it('ignores a reset already past, and says the time of one to come in words', () => {
    const past = channelHealth(facts({ rateLimitedUntil: new Date(now.getTime() - 1), postsWaitingForRateLimit: 1 }));
    expect(past.rateLimit).toMatchObject({ limited: false, until: null });
    const until = new Date('2026-03-01T10:42:30Z');
    const limited = channelHealth(facts({ rateLimitedUntil: until, postsWaitingForRateLimit: 1 }));
    expect(limited.actions[0]).toMatchObject({ code: 'wait_rate_limit', until });
    expect(healthInWords(limited)).toBe('Rate limited until 10:42 UTC');
  });

  it('says disabled when the only news is that the channel is disabled', () => {
    const health = channelHealth(facts({ disabled: true }));
    expect(health.status).toBe('disabled');
    expect(health.actions).toEqual([{ code: 'none', message: 'The channel is disabled.' }]);
  });
});
