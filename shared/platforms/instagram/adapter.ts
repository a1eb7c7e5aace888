import { z } from 'zod';
import type { AdapterOptions, PlatformAdapter } from '../kit/platform-adapter.ts';
import type { PlatformApp } from '../kit/platform-connect.ts';
import { PlatformError } from '../kit/platform-error.ts';
import type { ContainerTiming } from '../meta/instagram-containers.ts';
import { createInstagramVariantAdapter, type InstagramAccount } from '../meta/instagram-variant-adapter.ts';
import type { InstagramGraph } from '../meta/instagram-graph.ts';

const provider = 'instagram';

/** A Page token's `/me` is the Page; its linked Instagram professional account is the one SPS publishes as. */
const pageWithAccount = z.object({
  id: z.string(),
  instagram_business_account: z.object({ id: z.string(), username: z.string().optional() }).optional(),
});

async function linkedAccount(graph: InstagramGraph): Promise<InstagramAccount> {
  const me = await graph.get('/me', { fields: 'id,instagram_business_account{id,username}' });
  const page = pageWithAccount.safeParse(me);
  if (!page.success) throw graph.unreadable('a Page', page.error);
  const account = page.data.instagram_business_account;
  if (account === undefined) {
    const message = 'the Facebook Page no longer has an Instagram professional account linked; '
      + 'connect the account again';
    throw new PlatformError({ kind: 'disconnected', provider, message });
  }
  return { id: account.id, username: account.username ?? account.id };
}

/**
 * Instagram through Facebook Login (graph.facebook.com, the linked Page's token): the container
 * protocol and its exactly-once rules are instagram-containers.ts, comments, tools and analytics
 * instagram-variant-adapter.ts, both shared with Instagram Login.
 */
export function createInstagramAdapter(
  options: AdapterOptions,
  app: PlatformApp,
  timing?: ContainerTiming,
): PlatformAdapter {
  return createInstagramVariantAdapter(options, {
    provider,
    apiUrl: app.apiUrl,
    accountOf: linkedAccount,
    ...(timing === undefined ? {} : { timing }),
  });
}
