import { z } from 'zod';
import type { OAuthConnect, UserTokens, VerifiedAccount } from '../kit/platform-connect.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { platformRequest } from '../kit/platform-http.ts';
import { unreadableAnswer } from '../kit/unreadable-answer.ts';
import { googleApiErrorMessage, googleOAuthProvider } from '../google/google-oauth.ts';

const provider = 'youtube';

/**
 * Upload videos and set their thumbnails (youtube.upload), read the channel, its playlists and
 * statistics (youtube.readonly), and add a video to a playlist: playlistItems.insert takes no
 * narrower scope than youtube.force-ssl.
 */
const scopes = [
  'https://www.googleapis.com/auth/youtube.upload',
  'https://www.googleapis.com/auth/youtube.readonly',
  'https://www.googleapis.com/auth/youtube.force-ssl',
] as const;

/** channels.list with part=snippet (YouTube Data API v3). */
const channel = z.object({
  id: z.string().min(1),
  snippet: z.object({
    title: z.string(),
    customUrl: z.string().optional(),
    thumbnails: z.object({ default: z.object({ url: z.string() }).optional() }).optional(),
  }),
});
/** YouTube leaves `items` out when the account has no channel. */
const channelList = z.object({ items: z.array(channel).optional() });

function channelAccounts(channels: readonly z.infer<typeof channel>[], tokens: UserTokens): VerifiedAccount[] {
  return channels.map((item) => ({
    accountId: item.id,
    name: item.snippet.title,
    username: item.snippet.customUrl ?? null,
    picture: item.snippet.thumbnails?.default?.url ?? null,
    instanceUrl: null,
    accessToken: tokens.accessToken,
    refreshToken: tokens.refreshToken,
    expiresAt: tokens.expiresAt,
  }));
}

export const youtubeConnect: OAuthConnect = {
  kind: 'oauth2',

  provider: (app) => googleOAuthProvider(provider, app, scopes),

  async accounts(tokens, context) {
    const url = new URL(`${context.app.apiUrl}/youtube/v3/channels`);
    url.searchParams.set('part', 'snippet');
    url.searchParams.set('mine', 'true');
    const body = await platformRequest({
      provider,
      serverName: 'YouTube',
      method: 'GET',
      url: url.toString(),
      headers: { Authorization: `Bearer ${tokens.accessToken}` },
      timeoutMs: context.timeoutMs,
      errorMessage: googleApiErrorMessage,
    });
    const parsed = channelList.safeParse(body);
    if (!parsed.success) {
      throw unreadableAnswer(provider, 'YouTube answered with a channel list', { cause: parsed.error });
    }
    const items = parsed.data.items ?? [];
    if (items.length === 0) {
      // A Google account without a channel can sign in but has nowhere to upload to.
      const message = 'this Google account has no YouTube channel: create one on YouTube, then connect again';
      throw new PlatformError({ kind: 'permanent', provider, message });
    }
    return { pick: items.length > 1, accounts: channelAccounts(items, tokens) };
  },
};
