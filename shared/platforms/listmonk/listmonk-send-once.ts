import { z } from 'zod';
import type { ChannelCredentials, PartCheckpoint } from '../kit/platform-adapter.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { unreadableAnswer } from '../kit/unreadable-answer.ts';
import { dataOf, provider, type ListmonkApi } from './listmonk-api.ts';

/**
 * listmonk takes no idempotency key, and a campaign is two steps: `POST /api/campaigns` makes a
 * draft, `PUT /api/campaigns/{id}/status {"status":"running"}` sends it (design-blogging-business.md
 * 8.2). Each step happens once:
 * - create: the attempt marks the part (`campaignSentAt`) before sending; an attempt that finds
 *   the mark but no id looks for the campaign by the part's tag, which its name carries, through
 *   listmonk's campaign search, and creates one only when there is none. The id is checkpointed
 *   as soon as it is known.
 * - start: only a draft is started. An attempt with a checkpointed id reads the campaign first: a
 *   campaign already running or finished (the earlier start's answer was lost) is left alone, and
 *   so is one a person paused or cancelled meanwhile, which SPS must not restart.
 */

export const campaignSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  status: z.string(),
  sent: z.number().optional(),
  to_send: z.number().optional(),
  views: z.number().optional(),
  clicks: z.number().optional(),
  /** v2 and later. */
  bounces: z.number().optional(),
});
export type Campaign = z.infer<typeof campaignSchema>;

const campaignPage = z.object({ results: z.array(campaignSchema) });

const sentKey = 'campaignSentAt';
const idKey = 'campaignId';

export async function readCampaign(api: ListmonkApi, channel: ChannelCredentials, id: number): Promise<Campaign> {
  const path = `/api/campaigns/${String(id)}`;
  const answer = await api.call(channel, { method: 'GET', path, query: { no_body: 'true' } });
  return dataOf(campaignSchema, answer, 'the campaign');
}

/** The campaign an earlier attempt made, found by the tag in its name. */
async function findTagged(api: ListmonkApi, channel: ChannelCredentials, tag: string): Promise<Campaign | null> {
  const answer = await api.call(channel, {
    method: 'GET', path: '/api/campaigns', query: { query: tag, per_page: '50', no_body: 'true' },
  });
  const page = z.object({ data: campaignPage }).safeParse(answer);
  if (!page.success) {
    // Without the list SPS cannot tell whether the campaign exists, and guessing could send it twice.
    throw unreadableAnswer(provider, 'listmonk answered the campaign search in a shape', { kind: 'unconfirmed' });
  }
  const tagged = page.data.data.results.filter((campaign) => campaign.name.includes(`[${tag}]`));
  if (tagged.length > 1) {
    const message = `listmonk holds ${String(tagged.length)} campaigns tagged ${tag}; SPS cannot tell which to send`;
    throw new PlatformError({ kind: 'unconfirmed', provider, message });
  }
  return tagged[0] ?? null;
}

export interface CampaignStep {
  api: ListmonkApi;
  channel: ChannelCredentials;
  checkpoint: PartCheckpoint;
  tag: string;
  /** The fields of `POST /api/campaigns`. */
  fields: Record<string, unknown>;
}

async function createOnce(step: CampaignStep): Promise<Campaign> {
  const { api, channel, checkpoint } = step;
  const stored = Number(checkpoint.values[idKey]);
  if (Number.isInteger(stored) && stored > 0) return readCampaign(api, channel, stored);
  if (checkpoint.values[sentKey] !== undefined) {
    const found = await findTagged(api, channel, step.tag);
    if (found !== null) {
      await checkpoint.save({ [idKey]: String(found.id) });
      return found;
    }
  } else {
    await checkpoint.save({ [sentKey]: new Date().toISOString() });
  }
  const answer = await api.call(channel, { method: 'POST', path: '/api/campaigns', json: step.fields });
  const created = z.object({ data: campaignSchema }).safeParse(answer);
  if (!created.success) {
    // listmonk made the campaign if it answered 200: the next attempt finds it by its tag.
    const message = 'listmonk created the campaign but answered without an id SPS could read';
    throw new PlatformError({ kind: 'retryable', provider, message });
  }
  await checkpoint.save({ [idKey]: String(created.data.data.id) });
  return created.data.data;
}

/** Creates the part's campaign once and starts it once; answers its id. */
export async function sendCampaignOnce(step: CampaignStep): Promise<number> {
  const campaign = await createOnce(step);
  if (campaign.status === 'draft') {
    await step.api.call(step.channel, {
      method: 'PUT', path: `/api/campaigns/${String(campaign.id)}/status`, json: { status: 'running' },
    });
  }
  return campaign.id;
}
