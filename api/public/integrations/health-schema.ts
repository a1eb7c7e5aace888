import { z } from 'zod';
import type { ChannelHealth, HealthAction } from '../../../shared/domain/channels/channel-health.ts';

const instant = z.iso.datetime();

const healthAction = z.discriminatedUnion('code', [
  z.object({ code: z.literal('reconnect'), message: z.string() })
    .describe('The platform refused the credentials, or the token expired and cannot be renewed: '
      + 'reconnect with GET /social/:provider?refresh=<id>'),
  z.object({ code: z.literal('grant_scope'), message: z.string(), scopes: z.array(z.string()) })
    .describe('Reconnect and grant these permissions'),
  z.object({ code: z.literal('wait_rate_limit'), message: z.string(), until: instant })
    .describe('The platform rate limits the channel; its waiting posts go out after `until`'),
  z.object({ code: z.literal('none'), message: z.string() }).describe('Nothing to do'),
]);

export const channelHealthResponse = z.object({
  id: z.string(),
  identifier: z.string().describe('Platform identifier, e.g. mastodon'),
  status: z.enum(['healthy', 'disabled', 'needs_reconnect', 'needs_scope', 'rate_limited'])
    .describe('The first action\'s meaning; healthy when there is nothing to do'),
  summary: z.string().describe('The status in a few words, as the dashboard shows it'),
  disabled: z.boolean(),
  refreshNeeded: z.boolean().describe('The platform rejected the credentials: reconnect the channel'),
  token: z.object({
    expiresAt: instant.nullable().describe('When the access token stops working; null when it has no lifetime'),
    expired: z.boolean(),
    renewable: z.boolean().describe('A refresh token is held and SPS can renew the access token with it'),
    lastRefreshedAt: instant.nullable().describe('When SPS last renewed the access token; null if never'),
  }),
  scopes: z.object({
    required: z.array(z.string()).nullable()
      .describe('Scopes SPS asks the platform for at connect; null for platforms without OAuth scopes'),
    granted: z.array(z.string()).nullable().describe('Scopes the platform granted; null: not recorded'),
    missing: z.array(z.string()).nullable().describe('Required scopes not granted; null when unknown'),
  }),
  lastPublish: z.object({
    postId: z.string(),
    state: z.enum(['PUBLISHED', 'ERROR']),
    at: instant.describe('When it was published, or when it failed'),
    releaseURL: z.string().nullable(),
    error: z.object({
      code: z.enum(['unconfirmed', 'publish_failed'])
        .describe('unconfirmed: the platform may have published it (see GET /posts/:id/missing)'),
      message: z.string(),
    }).nullable(),
  }).nullable().describe('The channel\'s latest published or failed post; null when none'),
  rateLimit: z.object({
    limited: z.boolean(),
    until: instant.nullable().describe('When the platform\'s rate-limit reset lets the waiting posts go'),
    postsWaiting: z.number().int().describe('Due posts whose publish waits for that reset'),
  }),
  actions: z.array(healthAction).min(1).describe('What to do, most pressing first'),
});

function presentAction(action: HealthAction): z.input<typeof healthAction> {
  return action.code === 'wait_rate_limit' ? { ...action, until: action.until.toISOString() } : action;
}

const iso = (instant: Date | null): string | null => (instant === null ? null : instant.toISOString());

export function presentChannelHealth(health: ChannelHealth, summary: string): z.input<typeof channelHealthResponse> {
  const { token, lastPublish, rateLimit } = health;
  return {
    id: health.channelId,
    identifier: health.provider,
    status: health.status,
    summary,
    disabled: health.disabled,
    refreshNeeded: health.refreshNeeded,
    token: { ...token, expiresAt: iso(token.expiresAt), lastRefreshedAt: iso(token.lastRefreshedAt) },
    scopes: health.scopes,
    lastPublish: lastPublish === null ? null : { ...lastPublish, at: lastPublish.at.toISOString() },
    rateLimit: { ...rateLimit, until: iso(rateLimit.until) },
    actions: health.actions.map(presentAction),
  };
}

export const channelHealthDescription = [
  'What SPS knows of the channel, read without calling the platform: the stored token\'s expiry and last renewal,',
  'the scopes the platform\'s room asks for (granted scopes are not recorded, so `granted` and `missing` are null),',
  'the latest published or failed post, and whether a platform\'s 429 holds the channel\'s due posts until its',
  'reset. `actions` lists what to do, most pressing first: reconnect, grant_scope, wait_rate_limit, or none.',
].join(' ');
