import { z } from 'zod';
import { mastodonSettings } from './definition.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { platformRequest, type PlatformRequest } from '../kit/platform-http.ts';
import { removedEvenIfGone } from '../kit/platform-removal.ts';
import { instanceLimitsResponse } from './instance-limits.ts';
import { mastodonErrorMessage } from './mastodon-error-message.ts';
import { mastodonRetryAfterMs } from './mastodon-rate-limit.ts';
import type {
  AdapterOptions,
  ChannelCredentials,
  CommentInput,
  PlatformAdapter,
  PublishInput,
  PublishMedia,
  PublishResult,
} from '../kit/platform-adapter.ts';
import { unreadableAnswer } from '../kit/unreadable-answer.ts';
import { trailingSlashes } from '../../net/trailing-slashes.ts';

const provider = 'mastodon';

const statusResponse = z.object({ id: z.string().min(1), url: z.string().nullable().optional(), uri: z.string() });

const accountResponse = z.object({ id: z.string().min(1) });

/** Counters of an Account and of a Status, as every instance reports them. */
const accountCounters = z.object({
  followers_count: z.number(),
  following_count: z.number(),
  statuses_count: z.number(),
});
const statusCounters = z.object({
  favourites_count: z.number(),
  reblogs_count: z.number(),
  replies_count: z.number(),
});

/** A MediaAttachment: `url` stays null while the instance is still processing the file. */
const attachmentResponse = z.object({ id: z.string().min(1), url: z.string().nullable().optional() });

/** How often, and how long, to ask whether an uploaded video is processed before retrying later. */
const processingPollMs = 1_000;
const processingWaitMs = 60_000;

function unreadable(what: string): PlatformError {
  return unreadableAnswer(provider, `Mastodon answered with ${what}`);
}

function instanceOf(channel: ChannelCredentials): string {
  if (channel.instanceUrl === null) {
    throw new PlatformError({
      kind: 'disconnected',
      provider,
      message: 'the channel has no Mastodon instance URL; connect it again',
    });
  }
  return channel.instanceUrl.replace(trailingSlashes, '');
}

/** What differs between the adapter's calls; the rest is the same for every call to an instance. */
type InstanceCall = Pick<
  PlatformRequest,
  'method' | 'url' | 'headers' | 'json' | 'multipart' | 'classify' | 'withStatus'
>;

/** 403: a disabled, unconfirmed or unapproved account, or a token without the scope; only the user can fix it. */
const forbiddenMeansReconnect = (status: number) => (status === 403 ? ('disconnected' as const) : undefined);

export function createMastodonAdapter(options: AdapterOptions): PlatformAdapter {
  /** Every call goes to the user's instance, so over a pinned, policy-checked connection. */
  function callInstance(call: InstanceCall): Promise<unknown> {
    return platformRequest({
      provider,
      serverName: 'the Mastodon instance',
      userHost: options.userHosts,
      timeoutMs: options.timeoutMs,
      errorMessage: mastodonErrorMessage,
      retryAfterMs: mastodonRetryAfterMs,
      ...call,
    });
  }

  /**
   * POST /api/v2/media: 200 when processed at once, 202 while the instance still works on it
   * (videos); then GET /api/v1/media/:id answers 206 until it is ready. A status can only
   * attach finished media.
   */
  async function uploadMedia(channel: ChannelCredentials, media: PublishMedia): Promise<string> {
    const answer = (await callInstance({
      method: 'POST',
      url: `${instanceOf(channel)}/api/v2/media`,
      headers: { Authorization: `Bearer ${channel.accessToken}` },
      multipart: {
        fields: media.alt === null ? {} : { description: media.alt.slice(0, 1500) },
        fileField: 'file',
        file: media,
      },
      withStatus: true,
      classify: forbiddenMeansReconnect,
    })) as { status: number; body: unknown };
    const attachment = attachmentResponse.safeParse(answer.body);
    if (!attachment.success) throw unreadable('a media attachment');
    if (answer.status === 200 && attachment.data.url !== null && attachment.data.url !== undefined)
      return attachment.data.id;
    const deadline = Date.now() + processingWaitMs;
    while (Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, processingPollMs));
      const polled = (await callInstance({
        method: 'GET',
        url: `${instanceOf(channel)}/api/v1/media/${encodeURIComponent(attachment.data.id)}`,
        headers: { Authorization: `Bearer ${channel.accessToken}` },
        withStatus: true,
        classify: forbiddenMeansReconnect,
      })) as { status: number; body: unknown };
      if (polled.status === 200) return attachment.data.id;
    }
    // Still processing: worth another attempt later, when the same upload may be done.
    throw new PlatformError({
      kind: 'retryable',
      provider,
      message: `Mastodon is still processing ${media.fileName}`,
    });
  }

  async function postStatus(input: PublishInput, inReplyToId: string | null): Promise<PublishResult> {
    const settings = mastodonSettings.parse(input.settings);
    const mediaIds: string[] = [];
    for (const media of input.media) mediaIds.push(await uploadMedia(input.channel, media));
    const raw = await callInstance({
      method: 'POST',
      url: `${instanceOf(input.channel)}/api/v1/statuses`,
      headers: {
        Authorization: `Bearer ${input.channel.accessToken}`,
        // Mastodon keeps the key for an hour and answers a repeat with the status it already made.
        'Idempotency-Key': input.idempotencyKey,
      },
      json: {
        status: input.content,
        ...settings,
        ...(inReplyToId === null ? {} : { in_reply_to_id: inReplyToId }),
        ...(mediaIds.length === 0 ? {} : { media_ids: mediaIds }),
      },
      classify: forbiddenMeansReconnect,
    });
    const status = statusResponse.safeParse(raw);
    if (!status.success) throw unreadable('a status');
    return { releaseId: status.data.id, releaseURL: status.data.url ?? status.data.uri };
  }

  function get(channel: ChannelCredentials, path: string): Promise<unknown> {
    return callInstance({
      method: 'GET',
      url: `${instanceOf(channel)}${path}`,
      headers: { Authorization: `Bearer ${channel.accessToken}` },
      classify: forbiddenMeansReconnect,
    });
  }

  return {
    provider,
    publish: (input: PublishInput) => postStatus(input, null),
    comment: (input: CommentInput) => postStatus(input, input.parentReleaseId),

    /** DELETE /api/v1/statuses/:id: the author's own status, gone for good; its replies stay. */
    async remove(channel, { releaseId }) {
      await removedEvenIfGone(() => callInstance({
        method: 'DELETE',
        url: `${instanceOf(channel)}/api/v1/statuses/${encodeURIComponent(releaseId)}`,
        headers: { Authorization: `Bearer ${channel.accessToken}` },
        classify: forbiddenMeansReconnect,
      }));
    },

    async recentContent(channel) {
      const account = accountResponse.safeParse(await get(channel, '/api/v1/accounts/verify_credentials'));
      if (!account.success) throw unreadable('an account');
      const statuses = z
        .array(statusResponse)
        .safeParse(
          await get(
            channel,
            `/api/v1/accounts/${encodeURIComponent(account.data.id)}/statuses?limit=20&exclude_reblogs=true`,
          ),
        );
      if (!statuses.success) throw unreadable('statuses');
      return statuses.data.map((status) => ({ id: status.id, url: status.url ?? status.uri }));
    },

    analytics: {
      async account(channel) {
        const counters = accountCounters.safeParse(await get(channel, '/api/v1/accounts/verify_credentials'));
        if (!counters.success) throw unreadable('account counters');
        const { followers_count: followers, following_count: following, statuses_count: posts } = counters.data;
        return [
          { label: 'Followers', value: followers },
          { label: 'Following', value: following },
          { label: 'Posts', value: posts },
        ];
      },
      async post(channel, releaseId) {
        const counters = statusCounters.safeParse(
          await get(channel, `/api/v1/statuses/${encodeURIComponent(releaseId)}`),
        );
        if (!counters.success) throw unreadable('status counters');
        const { favourites_count: favourites, reblogs_count: boosts, replies_count: replies } = counters.data;
        return [
          { label: 'Favourites', value: favourites },
          { label: 'Boosts', value: boosts },
          { label: 'Replies', value: replies },
        ];
      },
    },

    tools: {
      async instanceLimits(channel) {
        const instance = instanceLimitsResponse.safeParse(await get(channel, '/api/v2/instance'));
        if (!instance.success) throw unreadable('instance information');
        const { statuses, media_attachments: media } = instance.data.configuration;
        return {
          maxCharacters: statuses.max_characters,
          maxMediaAttachments: statuses.max_media_attachments,
          charactersReservedPerUrl: statuses.characters_reserved_per_url ?? null,
          supportedMimeTypes: media?.supported_mime_types ?? [],
        };
      },
    },
  };
}
