import { z } from 'zod';
import { mastodonSettings } from '../registry/mastodon.ts';
import { PlatformError } from '../platform-error.ts';
import { platformRequest } from '../platform-http.ts';
import type { AdapterOptions, ChannelCredentials, CommentInput, PlatformAdapter, PublishInput, PublishResult } from '../platform-adapter.ts';

const provider = 'mastodon';

const statusResponse = z.object({ id: z.string().min(1), url: z.string().nullable().optional(), uri: z.string() });

const errorBody = z.object({ error: z.string(), error_description: z.string().optional() });

function errorMessage(body: unknown): string | undefined {
  const parsed = errorBody.safeParse(body);
  if (!parsed.success) return undefined;
  return parsed.data.error_description === undefined ? parsed.data.error : `${parsed.data.error}: ${parsed.data.error_description}`;
}

function instanceOf(channel: ChannelCredentials): string {
  if (channel.instanceUrl === null) {
    throw new PlatformError({ kind: 'disconnected', provider, message: 'the channel has no Mastodon instance URL; connect it again' });
  }
  return channel.instanceUrl.replace(/\/+$/, '');
}

export function createMastodonAdapter(options: AdapterOptions): PlatformAdapter {
  async function postStatus(input: PublishInput, inReplyToId: string | null): Promise<PublishResult> {
    const settings = mastodonSettings.parse(input.settings);
    const raw = await platformRequest({
      provider,
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
      },
      timeoutMs: options.timeoutMs,
      errorMessage,
      // 403 covers a disabled, unconfirmed or unapproved account: only the user can fix that.
      classify: (status) => (status === 403 ? 'disconnected' : undefined),
    });
    const status = statusResponse.safeParse(raw);
    if (!status.success) {
      throw new PlatformError({ kind: 'permanent', provider, message: 'Mastodon answered with a status SPS could not read' });
    }
    return { releaseId: status.data.id, releaseURL: status.data.url ?? status.data.uri };
  }

  return {
    provider,
    publish: (input: PublishInput) => postStatus(input, null),
    comment: (input: CommentInput) => postStatus(input, input.parentReleaseId),
  };
}
