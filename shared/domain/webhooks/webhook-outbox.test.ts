import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { noCache } from '../../cache/invalidation-bus.ts';
import { createTestContext, type TestContext } from '../../../test/support/test-context.ts';
import { openDatabase, type Database } from '../../db/database.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import { createOrganization } from '../organizations/organizations.ts';
import { registerEndpoint } from './webhook-endpoints.ts';
import { WebhookOutbox } from './webhook-outbox.ts';

describe('WebhookOutbox: endpoints read ahead', () => {
  let ctx: TestContext;
  let monitored: Database;
  const finds: string[] = [];
  let organizationId: string;

  beforeAll(async () => {
    ctx = await createTestContext();
    monitored = await openDatabase(ctx.config.MONGO_URL, { monitorCommands: true });
    monitored.connection.getClient().on('commandStarted', (event) => {
      if (event.commandName === 'find') finds.push(String(event.command.find));
    });
    ({ organizationId } = await createOrganization(ctx.db, ctx.secrets, { name: 'Outbox' }));
    const deps = { db: ctx.db, secrets: ctx.secrets, userHosts: connectionPolicyFor(true), caches: noCache };
    await registerEndpoint(deps, organizationId, {
      url: 'https://hooks.example.com/outbox', events: ['post.published'],
    });
  });
  afterAll(async () => {
    await monitored.close();
    await ctx.cleanup();
  });

  it('reads them once for the steps of the reuse window, running or done, and again after it', async () => {
    const now = () => new Date();
    const outbox = new WebhookOutbox({ db: monitored, logger: ctx.logger, now, reuseEndpointsMs: 300 });
    finds.length = 0;
    const together = await Promise.all([outbox.endpointsOf(organizationId), outbox.endpointsOf(organizationId)]);
    const after = await outbox.endpointsOf(organizationId);
    expect(finds).toEqual(['webhook_endpoints']);
    expect(together[0]?.endpoints).toHaveLength(1);
    expect(together[1]).toBe(together[0]);
    expect(after).toBe(together[0]);

    await new Promise((resolve) => setTimeout(resolve, 400));
    const later = await outbox.endpointsOf(organizationId);
    expect(finds).toHaveLength(2);
    expect(later?.readAt).toBeGreaterThan(together[0]?.readAt ?? Number.POSITIVE_INFINITY);
  });

  it('reads them at the emit itself when none were read ahead, reuse window or not', async () => {
    const now = () => new Date();
    const outbox = new WebhookOutbox({ db: monitored, logger: ctx.logger, now, reuseEndpointsMs: 60_000 });
    await outbox.endpointsOf(organizationId);
    finds.length = 0;
    await outbox.emit(organizationId, 'post.published', {
      postId: 'p', group: 'g', channelId: 'c', provider: 'mastodon', releaseURL: 'https://m/1',
      publishedAt: new Date().toISOString(),
    });
    expect(finds).toEqual(['webhook_endpoints']);
  });

  it('reads them every time without a reuse window', async () => {
    const outbox = new WebhookOutbox({ db: monitored, logger: ctx.logger, now: () => new Date() });
    finds.length = 0;
    await outbox.endpointsOf(organizationId);
    await outbox.endpointsOf(organizationId);
    expect(finds).toEqual(['webhook_endpoints', 'webhook_endpoints']);
  });

  it('keeps no failed read: the next step reads again', async () => {
    const closed = await openDatabase(ctx.config.MONGO_URL);
    await closed.close();
    const now = () => new Date();
    const outbox = new WebhookOutbox({ db: closed, logger: ctx.logger, now, reuseEndpointsMs: 60_000 });
    expect(await outbox.endpointsOf(organizationId)).toBeNull();
    const second = outbox.endpointsOf(organizationId);
    expect(await second).toBeNull();
    // Two reads were made: the failed one was not handed on.
    expect(outbox.endpointsOf(organizationId)).not.toBe(second);
  });
});
