import { z } from 'zod';
import type { ContainerTiming } from '../meta/instagram-containers.ts';
import { createInstagramVariantAdapter, type InstagramAccount } from '../meta/instagram-variant-adapter.ts';
import type { InstagramGraph } from '../meta/instagram-graph.ts';
import type { AdapterOptions, PlatformAdapter } from '../kit/platform-adapter.ts';
import type { PlatformApp } from '../kit/platform-connect.ts';

/** graph.instagram.com's `/me`: `user_id` is the professional account id the publishing paths take. */
const me = z.object({ user_id: z.union([z.string(), z.number()]).transform(String), username: z.string() });

async function ownAccount(graph: InstagramGraph): Promise<InstagramAccount> {
  const answer = me.safeParse(await graph.get('/me', { fields: 'user_id,username' }));
  if (!answer.success) throw graph.unreadable('a profile', answer.error);
  return { id: answer.data.user_id, username: answer.data.username };
}

/**
 * Instagram through Instagram Login (graph.instagram.com, the account's own token): the same
 * containers, comments, tools and analytics as through Facebook Login (../instagram/), on
 * another host with another way to name the account.
 */
export function createInstagramStandaloneAdapter(
  options: AdapterOptions,
  app: PlatformApp,
  timing?: ContainerTiming,
): PlatformAdapter {
  return createInstagramVariantAdapter(options, {
    provider: 'instagram-standalone',
    apiUrl: app.apiUrl,
    accountOf: ownAccount,
    ...(timing === undefined ? {} : { timing }),
  });
}
