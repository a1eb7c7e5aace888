import { z } from 'zod';
import type {
  AdapterOptions, AnalyticsCounter, PlatformAdapter, PublishInput, PublishResult,
} from '../kit/platform-adapter.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { dataOf, listmonkApi, provider, rootOf } from './listmonk-api.ts';
import { campaignBody, campaignName, partTag, settingsOf, subjectOf } from './listmonk-content.ts';
import { hostImages } from './listmonk-media.ts';
import { campaignSchema, readCampaign, sendCampaignOnce } from './listmonk-send-once.ts';
import { activeLists, listmonkTools } from './listmonk-tools.ts';

const campaignPage = z.object({ results: z.array(campaignSchema) });

/** Where the campaign is seen: its page in listmonk's admin (v2 and later; before, the admin was at the root). */
const campaignUrl = (root: string, id: number): string => `${root}/admin/campaigns/${String(id)}`;

function releaseIdOf(releaseId: string): number {
  const id = Number(releaseId);
  if (!Number.isInteger(id) || id <= 0) {
    throw new PlatformError({ kind: 'permanent', provider, message: `${releaseId} is not a listmonk campaign id` });
  }
  return id;
}

/**
 * Publishes a post as one email campaign on the channel's listmonk instance
 * (design-blogging-business.md 8): images to the instance's media store (listmonk-media.ts), the
 * text converted to the campaign's content type (listmonk-content.ts), then the campaign created
 * and started, each once (listmonk-send-once.ts). The API user signs in with Basic auth, which
 * every version takes (credential.ts). Campaigns have no replies: a post has one part.
 */
export function createListmonkAdapter(options: AdapterOptions): PlatformAdapter {
  const api = listmonkApi(options);

  async function publish(input: PublishInput): Promise<PublishResult> {
    const settings = settingsOf(input.settings);
    const subject = subjectOf(settings, input.content);
    const tag = partTag(input.idempotencyKey);
    const images = await hostImages(api, input.channel, {
      media: input.media, checkpoint: input.checkpoint, tag, timeoutMs: options.timeoutMs,
    });
    const fields = {
      name: campaignName(settings, subject, tag),
      subject,
      lists: settings.lists,
      type: settings.type ?? 'regular',
      // listmonk before v4 has no default messenger: an empty one is refused.
      messenger: settings.messenger ?? 'email',
      ...campaignBody(settings, input.content, images),
      ...(settings.from_email === undefined ? {} : { from_email: settings.from_email }),
      ...(settings.template_id === undefined ? {} : { template_id: settings.template_id }),
      ...(settings.tags === undefined ? {} : { tags: settings.tags }),
    };
    const id = await sendCampaignOnce({ api, channel: input.channel, checkpoint: input.checkpoint, tag, fields });
    return { releaseId: String(id), releaseURL: campaignUrl(rootOf(input.channel), id) };
  }

  return {
    provider,
    publish,

    comment() {
      // validate-post.ts refuses a second part for `replies: 'none'`; this is the last guard.
      const message = 'listmonk campaigns have no replies: send one part only';
      return Promise.reject(new PlatformError({ kind: 'permanent', provider, message }));
    },

    async recentContent(channel) {
      const answer = await api.call(channel, {
        method: 'GET',
        path: '/api/campaigns',
        // Lowercase, as listmonk compares it (SortDesc = "desc"); its swagger's `DESC` only lands on the default.
        query: { per_page: '20', order_by: 'created_at', order: 'desc', no_body: 'true' },
      });
      const root = rootOf(channel);
      return dataOf(campaignPage, answer, 'its campaigns').results
        .map((campaign) => ({ id: String(campaign.id), url: campaignUrl(root, campaign.id) }));
    },

    tools: listmonkTools(api),

    analytics: {
      async account(channel): Promise<AnalyticsCounter[]> {
        const lists = await activeLists(api, channel);
        // A subscriber on two lists counts twice: listmonk gives per-list counts to a campaign user.
        const subscriptions = lists.reduce((sum, entry) => sum + (entry.subscribers ?? 0), 0);
        return [{ label: 'Lists', value: lists.length }, { label: 'List subscriptions', value: subscriptions }];
      },

      async post(channel, releaseId): Promise<AnalyticsCounter[]> {
        const campaign = await readCampaign(api, channel, releaseIdOf(releaseId));
        const counters: [string, number | undefined][] = [
          ['Sent', campaign.sent], ['To send', campaign.to_send], ['Views', campaign.views],
          ['Clicks', campaign.clicks], ['Bounces', campaign.bounces],
        ];
        return counters.flatMap(([label, value]) => (value === undefined ? [] : [{ label, value }]));
      },
    },
  };
}
