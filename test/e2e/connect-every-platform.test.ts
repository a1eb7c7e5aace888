import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { PlatformConnect } from '../../shared/platforms/kit/platform-connect.ts';
import { allPlatforms, findPlatformModule } from '../../shared/platforms/platforms.ts';
import { DashboardClient, newAccount, type PageAnswer } from '../browser/dashboard-client.ts';
import { api } from '../support/fixtures.ts';
import { freePort } from '../support/free-port.ts';
import { startStack, type RunningStack } from '../support/stack.ts';
import { createTestContext, type TestContext } from '../support/test-context.ts';
import { startPlatforms, type PlatformAccount, type SimulatedPlatforms } from '../simulators/every-platform.ts';

const v1 = '/api/public/v1';
const urlAnswer = z.object({ url: z.url() });
const listedChannels = z.array(z.object({ id: z.string(), identifier: z.string(), name: z.string() }).loose());

function connectOf(identifier: string): PlatformConnect {
  const module = findPlatformModule(identifier);
  if (module === undefined) throw new Error(`${identifier} is not a platform`);
  return module.connect;
}

/** The channel id the dashboard names when it sends the user back to the channel list. */
function connectedChannelId(answer: PageAnswer): string {
  const id = /^\/channels\?connected=([0-9a-f]{24})$/.exec(answer.location ?? '')?.[1];
  if (id === undefined) {
    throw new Error(`expected a redirect to the channels, got ${String(answer.status)}: ${answer.html}`);
  }
  return id;
}

/**
 * An organization connects a channel of each of the 27 platforms itself, against each platform's
 * simulator: through `GET /social/:provider` with its API key, the platform's consent page and
 * the dashboard's callback and picker (OAuth), or the dashboard's form (credentials).
 */
describe('an organization connects every platform through the public API and the dashboard', () => {
  let platforms: SimulatedPlatforms;
  let ctx: TestContext;
  let stack: RunningStack;
  let frontendUrl = '';
  let dashboard: DashboardClient;
  let apiKey = '';
  let organizationId = '';
  const connected = new Map<string, string>();

  beforeAll(async () => {
    platforms = await startPlatforms();
    // The platforms send the user back to FRONTEND_URL, which must name the api before it listens.
    const port = await freePort();
    frontendUrl = `http://127.0.0.1:${String(port)}`;
    ctx = await createTestContext({ ...platforms.env, FRONTEND_URL: frontendUrl });
    stack = await startStack(ctx, { workers: false, port });
    dashboard = new DashboardClient(stack.baseUrl);
    const account = newAccount('every-platform');
    expect((await dashboard.signUp(account)).status).toBe(302);
    await dashboard.get('/settings');
    const revealed = await dashboard.post('/settings/api-key/reveal', {});
    apiKey = /id="api-key"[^>]*>([^<]+)</.exec(revealed.html)?.[1] ?? '';
    expect(apiKey).not.toBe('');
    const organization = await ctx.db.organizations.findOne({ name: account.organization }).lean();
    organizationId = organization?._id.toString() ?? '';
    expect(organizationId).not.toBe('');
    // Twice the default: the 27 simulators compile their platforms' operation files as they start,
    // about 15 s of CPU on a loaded two-core machine, before the stack's own start.
  }, 120_000);
  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
    await platforms.close();
  });

  const accountOf = (identifier: string): PlatformAccount => {
    const account = platforms.accounts.get(identifier);
    if (account === undefined) throw new Error(`no simulated account for ${identifier}`);
    return account;
  };

  /** `GET /social/:provider` with the organization's key, and the URL it answers. */
  async function startConnecting(identifier: string, query: Record<string, string>): Promise<URL> {
    const search = new URLSearchParams(query).toString();
    const answer = await api(stack.baseUrl, apiKey, `${v1}/social/${identifier}${search === '' ? '' : `?${search}`}`);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return new URL(urlAnswer.parse(answer.body).url);
  }

  /** The platform's consent page (approving at once), the callback, and the picker where there is one. */
  async function connectWithOAuth(
    identifier: string,
    account: Extract<PlatformAccount, { kind: 'oauth2' }>,
    refresh: string | null = null,
  ): Promise<string> {
    const authorize = await startConnecting(identifier, {
      ...account.query,
      ...(refresh === null ? {} : { refresh }),
    });
    const consent = await fetch(authorize, { redirect: 'manual' });
    expect(consent.status, await consent.text()).toBe(302);
    const back = new URL(consent.headers.get('location') ?? '');
    expect(`${back.origin}${back.pathname}`).toBe(`${frontendUrl}/channels/callback/${identifier}`);
    expect(back.searchParams.get('error_description') ?? back.searchParams.get('error')).toBeNull();
    const callback = await dashboard.get(`${back.pathname}${back.search}`);
    // Reconnecting finds the same account among the targets, so it skips the picker.
    if (account.pick === undefined || refresh !== null) return connectedChannelId(callback);

    const pickPath = callback.location ?? '';
    expect(pickPath, callback.html).toMatch(new RegExp(`^/channels/pick/${identifier}\\?key=`));
    const picker = await dashboard.get(pickPath);
    expect(picker.status).toBe(200);
    // The picker offers at least the first target and the one chosen here.
    expect(picker.html.match(/name="account"/g)?.length ?? 0).toBeGreaterThanOrEqual(2);
    expect(picker.html).toContain(`value="${account.pick}"`);
    const key = new URL(pickPath, frontendUrl).searchParams.get('key') ?? '';
    return connectedChannelId(await dashboard.post(`/channels/pick/${identifier}`, { key, account: account.pick }));
  }

  /**
   * The form link the API answers (its key carries the organization and the refresh), the form
   * page, and the form posted with the account's values and the link's key.
   */
  async function connectWithForm(
    identifier: string,
    account: Extract<PlatformAccount, { kind: 'credentials' }>,
    refresh: string | null = null,
  ): Promise<string> {
    const formUrl = await startConnecting(identifier, refresh === null ? {} : { refresh });
    expect(`${formUrl.origin}${formUrl.pathname}`).toBe(`${frontendUrl}/channels/connect/${identifier}`);
    const key = formUrl.searchParams.get('key') ?? '';
    expect(key).not.toBe('');
    const form = await dashboard.get(`${formUrl.pathname}${formUrl.search}`);
    expect(form.status).toBe(200);
    expect(form.html).toContain(`name="key" value="${key}"`);
    return connectedChannelId(await dashboard.post(`/channels/connect/${identifier}`, { ...account.fields, key }));
  }

  async function listed(): Promise<z.infer<typeof listedChannels>> {
    const answer = await api(stack.baseUrl, apiKey, `${v1}/integrations`);
    expect(answer.status).toBe(200);
    return listedChannels.parse(answer.body);
  }

  const identifiers = allPlatforms().map((platform) => platform.identifier);

  it('has one simulated account for each of the 27 platforms', () => {
    expect(identifiers).toHaveLength(27);
    expect([...platforms.accounts.keys()].sort()).toEqual([...identifiers].sort());
  });

  it.each(identifiers)('connects %s and keeps its token sealed', async (identifier) => {
    const account = accountOf(identifier);
    const connect = connectOf(identifier);
    expect(connect.kind).toBe(account.kind);
    let id: string;
    if (account.kind === 'oauth2') {
      id = await connectWithOAuth(identifier, account);
    } else {
      // The values go into the room's own fields: a key the form does not have would be dropped.
      const keys = connect.kind === 'credentials' ? connect.fields.map((field) => field.key) : [];
      for (const key of Object.keys(account.fields)) expect(keys).toContain(key);
      id = await connectWithForm(identifier, account);
    }
    connected.set(identifier, id);

    expect((await listed()).find((channel) => channel.id === id)).toMatchObject({ identifier, name: account.name });
    const channel = await ctx.db.channels.findById(id).lean();
    expect(channel?.organizationId.toString()).toBe(organizationId);
    expect(channel?.provider).toBe(identifier);
    if (account.kind === 'oauth2' && account.pick !== undefined) expect(channel?.accountId).toBe(account.pick);
    const token = ctx.secrets.open(channel?.tokenSealed ?? '');
    expect(token).not.toBe('');
    const stored = JSON.stringify(channel);
    expect(stored).not.toContain(token);
    // What the user typed into secret fields (bot tokens, passwords, keys) is never kept in clear either.
    if (account.kind === 'credentials' && connect.kind === 'credentials') {
      for (const field of connect.fields.filter((candidate) => candidate.kind === 'secret')) {
        const typed = account.fields[field.key];
        if (typed !== undefined) expect(stored).not.toContain(typed);
      }
    }
  });

  it('reconnects an OAuth and a credentials channel in place with ?refresh, keeping 27 channels', async () => {
    const xId = connected.get('x');
    const telegramId = connected.get('telegram');
    if (xId === undefined || telegramId === undefined) throw new Error('X and Telegram must be connected first');
    const x = accountOf('x');
    const telegram = accountOf('telegram');
    if (x.kind !== 'oauth2' || telegram.kind !== 'credentials') throw new Error('X is OAuth, Telegram a form');
    const before = await ctx.db.channels.findById(xId).lean();

    expect(await connectWithOAuth('x', x, xId)).toBe(xId);
    expect(await connectWithForm('telegram', telegram, telegramId)).toBe(telegramId);

    // X issued a new token on the second consent; the channel holds it now.
    const after = await ctx.db.channels.findById(xId).lean();
    expect(ctx.secrets.open(after?.tokenSealed ?? '')).not.toBe(ctx.secrets.open(before?.tokenSealed ?? ''));
    const channels = await listed();
    expect(channels).toHaveLength(27);
    expect(new Set(channels.map((channel) => channel.identifier)).size).toBe(27);
    expect(await ctx.db.channels.countDocuments({ organizationId })).toBe(27);
  });
});
