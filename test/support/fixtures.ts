import type { MastodonSimulator } from '../simulators/mastodon/mastodon-simulator.ts';
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

/**
 * Connects a Mastodon account the way an API client's user does: `GET /social/mastodon` with
 * the instance, the instance's consent page (the simulator approves as `username`), then the
 * dashboard's callback, which the api serves. Returns the new (or reconnected) channel's id.
 */
export async function connectMastodonThroughApi(
  baseUrl: string,
  apiKey: string,
  simulator: MastodonSimulator,
  username: string,
  options: { refresh?: string } = {},
): Promise<string> {
  const query = new URLSearchParams({ instance: simulator.origin });
  if (options.refresh !== undefined) query.set('refresh', options.refresh);
  const started = await api(baseUrl, apiKey, `/api/public/v1/social/mastodon?${query.toString()}`);
  const { url } = started.body as { url: string };
  simulator.apps.consentingUser = username;
  const consent = await fetch(url, { redirect: 'manual' });
  const back = new URL(consent.headers.get('location') ?? '');
  const page = await fetch(`${baseUrl}${back.pathname}${back.search}`, { redirect: 'manual' });
  const html = await page.text();
  const id = /channel <code>([0-9a-f]{24})<\/code>/.exec(html)?.[1];
  if (page.status !== 200 || id === undefined) {
    throw new Error(`the callback answered ${String(page.status)}: ${html.slice(0, 300)}`);
  }
  return id;
}
