import { z } from 'zod';
import type { ChannelCredentials, ToolHandler } from '../kit/platform-adapter.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { dataOf, provider, type ListmonkApi } from './listmonk-api.ts';

/**
 * The tools the definition lists (design-blogging-business.md 8.8): the lists a campaign can go
 * to and the templates it can use, with the ids the settings take.
 */

const list = z.object({
  id: z.number().int(),
  name: z.string(),
  type: z.string(),
  optin: z.string(),
  subscriber_count: z.number().optional(),
  /** v3 and later: `active` or `archived`. */
  status: z.string().optional(),
  tags: z.array(z.string()).nullish(),
});
const listPage = z.object({ results: z.array(list) });
const template = z.object({
  id: z.number().int(),
  name: z.string(),
  /** v2 and later: campaign, campaign_visual, tx. Earlier versions have campaign templates only. */
  type: z.string().optional(),
  is_default: z.boolean(),
});

export interface ListEntry {
  id: number;
  name: string;
  type: string;
  optin: string;
  subscribers: number | null;
  tags: string[];
}

/** The tools take no input; anything given is refused rather than silently ignored. */
const noInput = z.object({}).strict();

function parseInput(tool: string, data: Record<string, unknown>): void {
  const parsed = noInput.safeParse(data);
  if (parsed.success) return;
  const message = `${tool} takes no input (got ${Object.keys(data).join(', ')})`;
  throw new PlatformError({ kind: 'permanent', provider, message });
}

/** The active lists (archived ones are hidden from pickers, as listmonk's own admin does). */
export async function activeLists(api: ListmonkApi, channel: ChannelCredentials): Promise<ListEntry[]> {
  const query = { per_page: 'all', status: 'active' };
  const answer = await api.call(channel, { method: 'GET', path: '/api/lists', query });
  return dataOf(listPage, answer, 'its lists').results
    .filter((entry) => entry.status !== 'archived')
    .map((entry) => ({
      id: entry.id,
      name: entry.name,
      type: entry.type,
      optin: entry.optin,
      subscribers: entry.subscriber_count ?? null,
      tags: entry.tags ?? [],
    }));
}

export function listmonkTools(api: ListmonkApi): Record<string, ToolHandler> {
  return {
    async lists(channel, data) {
      parseInput('lists', data);
      return activeLists(api, channel);
    },

    async templates(channel, data) {
      parseInput('templates', data);
      const answer = await api.call(channel, { method: 'GET', path: '/api/templates', query: { no_body: 'true' } });
      return dataOf(z.array(template), answer, 'its templates')
        .filter((entry) => entry.type === undefined || entry.type === 'campaign' || entry.type === 'campaign_visual')
        .map((entry) => ({
          id: entry.id, name: entry.name, type: entry.type ?? 'campaign', isDefault: entry.is_default,
        }));
    },
  };
}
