import { execFileSync } from 'node:child_process';
import { noCache } from '../../shared/cache/invalidation-bus.ts';
import { Readable } from 'node:stream';
import { Types } from 'mongoose';
import { registerApp } from '../../shared/domain/oauth/oauth-apps.ts';
import { createOrganization } from '../../shared/domain/organizations/organizations.ts';
import { addTokenChannel } from '../../shared/domain/channels/channels.ts';
import { notify } from '../../shared/domain/notifications/notifications.ts';
import { registerEndpoint } from '../../shared/domain/webhooks/webhook-endpoints.ts';
import { WebhookOutbox } from '../../shared/domain/webhooks/webhook-outbox.ts';
import { connectionPolicyFor } from '../../shared/net/connection-policy.ts';
import { createStorage } from '../../shared/storage/create-storage.ts';
import { newObjectKey } from '../../shared/storage/object-key.ts';
import { DashboardClient } from '../browser/dashboard-client.ts';
import { MastodonSimulator } from '../simulators/mastodon/mastodon-simulator.ts';
import { api } from '../support/fixtures.ts';
import { createTestDatabase } from '../support/postgres.ts';
import { startService, type ServiceProcess } from '../support/processes.ts';
import { startStack, type RunningStack } from '../support/stack.ts';
import { createTestContext, type TestContext } from '../support/test-context.ts';

/**
 * What the fuzz targets refer to: one organization with a channel, posts, media, an OAuth app
 * and a dashboard session.
 */
export interface FuzzFacts {
  apiPort: number;
  authPort: number;
  apiKey: string;
  channelId: string;
  /** A second channel that DELETE /integrations/:id may remove without spoiling the other routes. */
  spareChannelId: string;
  customerId: string;
  postId: string;
  /** A post DELETE /posts/:id may remove. */
  sparePostId: string;
  group: string;
  mediaId: string;
  mediaPath: string;
  /** The stored file's path under /uploads. */
  uploadPath: string;
  /** The image's bytes, for multipart uploads. */
  png: Buffer;
  clientId: string;
  appId: string;
  dashboard: DashboardClient;
  dashboardOrganizationId: string;
  /** A session of its own for POST /logout, which ends it at the first valid request. */
  leavingDashboard: DashboardClient;
  /** A webhook endpoint of the API's organization and one of its deliveries (no webhook worker sends it). */
  webhookId: string;
  webhookDeliveryId: string;
  /** A Mastodon channel of the dashboard's organization: the composer counts and checks against it. */
  dashboardChannelId: string;
  /** A webhook endpoint of the dashboard's organization. */
  dashboardWebhookId: string;
}

async function signedUpClient(baseUrl: string, email: string): Promise<DashboardClient> {
  const client = new DashboardClient(baseUrl);
  const answer = await client.signUp({ email, password: 'fuzz password 123', organization: `Org of ${email}` });
  if (answer.status !== 302) throw new Error(`dashboard sign-up failed: ${answer.status}`);
  // The next page carries the CSRF token the fuzzed forms are sent with.
  await client.get('/settings');
  return client;
}

/**
 * The api (with a platform worker answering integration tools from a Mastodon simulator, so
 * those calls end normally instead of timing out) and the auth server, both real, with the data
 * the routes need. Media and publish workers stay off: nothing fetched or published leaves the
 * machine, and upload routes answer 202 after a short wait.
 */
export class FuzzWorld {
  readonly simulator = new MastodonSimulator();
  #ctx: TestContext | null = null;
  #stack: RunningStack | null = null;
  #auth: ServiceProcess | null = null;
  #authDatabase: { drop(): Promise<void> } | null = null;
  #facts: FuzzFacts | null = null;

  get facts(): FuzzFacts {
    if (this.#facts === null) throw new Error('the fuzz world is used before it started');
    return this.#facts;
  }

  get ctx(): TestContext {
    if (this.#ctx === null) throw new Error('the fuzz world is used before it started');
    return this.#ctx;
  }

  async start(): Promise<void> {
    await this.simulator.start();
    const ctx = await createTestContext({
      WORKER_QUEUES: 'platform', MEDIA_WAIT_MS: '200', VIDEO_WAIT_MS: '200', PLATFORM_CALL_WAIT_MS: '15000',
    });
    this.#ctx = ctx;
    const stack = await startStack(ctx);
    this.#stack = stack;
    const apiPort = Number(new URL(stack.baseUrl).port);

    const organization = await createOrganization(ctx.db, ctx.secrets, { name: 'Fuzz org' });
    const policy = { allowPrivateNetwork: true };
    const channel = {
      organizationId: organization.organizationId, provider: 'mastodon', instanceUrl: this.simulator.origin,
      customer: 'Fuzz customer',
    };
    const { id: channelId } = await addTokenChannel(ctx.db, ctx.secrets, policy, {
      ...channel, name: 'Fuzz Mastodon', token: this.simulator.addAccount('fuzz'),
    });
    const { id: spareChannelId } = await addTokenChannel(ctx.db, ctx.secrets, policy, {
      ...channel, name: 'Spare', token: this.simulator.addAccount('spare'),
    });
    const customer = await ctx.db.customers.findOne({
      organizationId: new Types.ObjectId(organization.organizationId),
    }).lean();
    // A ready image in the library, stored where the api serves uploads (no media worker runs here).
    const png = execFileSync('ffmpeg', [
      '-v', 'error', '-f', 'lavfi', '-i', 'testsrc=size=8x8', '-frames:v', '1', '-c:v', 'png', '-f', 'image2pipe', '-',
    ]);
    const key = newObjectKey('png');
    const stored = await (await createStorage(ctx.config)).put(key, Readable.from([png]), { contentType: 'image/png' });
    const media = await ctx.db.media.create({
      organizationId: new Types.ObjectId(organization.organizationId), name: 'fuzz.png', originalName: 'fuzz.png',
      storageKey: key,
      path: stored.url, mimeType: 'image/png', size: png.length, width: 8, height: 8, status: 'ready',
    });
    const postIds: string[] = [];
    for (const group of ['fuzz', 'fuzz-spare']) {
      const created = await api(stack.baseUrl, organization.apiKey, '/api/public/v1/posts', {
        method: 'POST',
        body: { type: 'draft', posts: [{ integration: { id: channelId }, group, value: [{ content: 'a draft' }] }] },
      });
      const [first] = created.body as { postId: string }[];
      if (created.status !== 201 || first === undefined) {
        throw new Error(`setting up posts failed: ${created.status} ${JSON.stringify(created.body)}`);
      }
      postIds.push(first.postId);
    }
    await notify(ctx.db, organization.organizationId, { content: 'fuzz notification', link: null });

    const dashboard = await signedUpClient(stack.baseUrl, 'fuzz@example.com');
    const leavingDashboard = await signedUpClient(stack.baseUrl, 'leaving@example.com');
    const user = await ctx.db.users.findOne({ email: 'fuzz@example.com' }).lean();
    const dashboardOrganizationId = user?.organizationIds[0]?.toString() ?? '';
    const { id: dashboardChannelId } = await addTokenChannel(ctx.db, ctx.secrets, policy, {
      ...channel, organizationId: dashboardOrganizationId, name: 'Dashboard Mastodon',
      token: this.simulator.addAccount('dashboard'),
    });
    const registered = await registerApp(ctx.db, ctx.secrets, dashboardOrganizationId, {
      name: 'Fuzz app', description: 'fuzzed', redirectUrl: 'http://127.0.0.1:1/callback',
    });

    const endpointDeps = { db: ctx.db, secrets: ctx.secrets, userHosts: connectionPolicyFor(true), caches: noCache };
    const webhook = await registerEndpoint(endpointDeps, organization.organizationId, {
      url: 'https://hooks.example.invalid/sps', events: ['post.published'],
    });
    const dashboardWebhook = await registerEndpoint(endpointDeps, dashboardOrganizationId, {
      url: 'https://hooks.example.invalid/dashboard', events: ['media.ready'],
    });
    await new WebhookOutbox({ db: ctx.db, logger: ctx.logger, now: () => new Date() }).emit(
      organization.organizationId,
      'post.published',
      {
        postId: postIds[0] ?? '', group: 'fuzz', channelId, provider: 'mastodon',
        releaseURL: 'https://mastodon.example.invalid/1', publishedAt: new Date().toISOString(),
      },
    );
    const delivery = await ctx.db.webhookDeliveries.findOne({ endpointId: webhook.endpoint.id }).lean();

    const authPort = await this.#startAuthServer(ctx, organization.organizationId);
    this.#facts = {
      apiPort, authPort, apiKey: organization.apiKey, channelId, spareChannelId,
      customerId: customer?._id.toString() ?? '',
      postId: postIds[0] ?? '', sparePostId: postIds[1] ?? '', group: 'fuzz-spare', mediaId: media._id.toString(),
      mediaPath: stored.url,
      uploadPath: new URL(stored.url).pathname, png, clientId: registered.app.clientId,
      appId: registered.app._id.toString(), dashboard, dashboardOrganizationId, leavingDashboard,
      webhookId: webhook.endpoint.id, webhookDeliveryId: delivery?._id.toString() ?? '',
      dashboardWebhookId: dashboardWebhook.endpoint.id, dashboardChannelId,
    };
  }

  async #startAuthServer(ctx: TestContext, organizationId: string): Promise<number> {
    const database = await createTestDatabase();
    this.#authDatabase = database;
    const app = await registerApp(ctx.db, ctx.secrets, organizationId, {
      name: 'Fuzz CLI', description: 'auth server', redirectUrl: 'http://127.0.0.1:1/device/callback',
    });
    const stackUrl = this.#stack === null ? '' : this.#stack.baseUrl;
    const service = startService('auth-server/main.ts', {
      PATH: process.env.PATH, DATABASE_URL: database.url, SERVICE_OAUTH_CLIENT_ID: app.app.clientId,
      SERVICE_OAUTH_CLIENT_SECRET: app.clientSecret,
      SERVICE_FRONTEND_URL: stackUrl, SERVICE_API_URL: `${stackUrl}/api`, LOG_LEVEL: 'info', PORT: '0',
    });
    this.#auth = service;
    const [, port] = await service.waitForOutput(/\(port (\d+)\)/, 30_000);
    return Number(port);
  }

  /** Everything the auth server wrote: its own 500s are logged there. */
  authServerOutput(): string {
    return this.#auth?.output() ?? '';
  }

  async stop(): Promise<void> {
    await this.#auth?.stop();
    await this.#authDatabase?.drop();
    await this.#stack?.close();
    await this.#ctx?.cleanup();
    await this.simulator.stop();
  }
}
