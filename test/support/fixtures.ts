import type { TestContext } from './test-context.ts';
import { addTokenChannel } from '../../shared/domain/channels/channels.ts';
import { createOrganization, type CreatedOrganization } from '../../shared/domain/organizations/organizations.ts';

/** An organization with one Mastodon channel pointing at `instanceUrl` (usually a simulator). */
export async function organizationWithMastodon(ctx: TestContext, instanceUrl: string, token: string): Promise<CreatedOrganization & { channelId: string }> {
  const organization = await createOrganization(ctx.db, ctx.secrets, { name: `Org ${Math.random().toString(36).slice(2, 8)}` });
  const channel = await addTokenChannel(ctx.db, ctx.secrets, { allowPrivateNetwork: true }, {
    organizationId: organization.organizationId,
    provider: 'mastodon',
    name: 'Our Mastodon',
    instanceUrl,
    token,
  });
  return { ...organization, channelId: channel.id };
}

/** fetch against the api with the organization's key, JSON in and out. */
export async function api(baseUrl: string, apiKey: string | null, path: string, init: { method?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {}): Promise<{ status: number; body: unknown; headers: Headers }> {
  const headers: Record<string, string> = { ...init.headers };
  if (apiKey !== null && headers.Authorization === undefined) headers.Authorization = apiKey;
  let body: string | undefined = init.rawBody;
  if (init.body !== undefined) {
    headers['Content-Type'] ??= 'application/json';
    body = JSON.stringify(init.body);
  }
  const response = await fetch(`${baseUrl}${path}`, { method: init.method ?? 'GET', headers, body });
  const text = await response.text();
  return { status: response.status, body: text === '' ? null : JSON.parse(text) as unknown, headers: response.headers };
}
