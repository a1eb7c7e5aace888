import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findOrganizationByApiKey } from '../../shared/domain/organizations/organizations.ts';
import { createTestContext, type TestContext } from '../../test/support/test-context.ts';
import { seedOrganizations, seedPosts, type SeededOrganization } from './seed-database.ts';

const instanceUrl = 'http://127.0.0.1:9';

describe('seeding the benchmark database (npm run bench:seed)', () => {
  let ctx: TestContext;
  let organizations: SeededOrganization[];

  beforeAll(async () => {
    ctx = await createTestContext();
    organizations = await seedOrganizations(ctx.db, ctx.secrets, { count: 4, instanceUrl, mediaPerOrganization: 3 });
  });
  afterAll(async () => {
    await ctx.cleanup();
  });

  it('makes organizations whose API keys work, one Mastodon channel each and ready media', async () => {
    for (const organization of organizations) {
      const found = await findOrganizationByApiKey(ctx.db, ctx.secrets, organization.apiKey);
      expect(found?.id).toBe(organization.organizationId.toString());
      const channels = await ctx.db.channels.find({ organizationId: organization.organizationId }).lean();
      expect(channels.map((channel) => [channel._id.toString(), channel.provider, channel.instanceUrl]))
        .toEqual([[organization.channelId.toString(), 'mastodon', instanceUrl]]);
      expect(ctx.secrets.open(channels[0]?.tokenSealed ?? '')).toMatch(/^[0-9a-f]{32}$/);
      const media = await ctx.db.media.find({ organizationId: organization.organizationId }).lean();
      expect(media.map((item) => item.status)).toEqual(['ready', 'ready', 'ready']);
    }
  });

  it('adds exactly the posts asked for, as threads, states and notifications a service in use would hold', async () => {
    const report = await seedPosts(ctx.db, organizations, { count: 2_500, instanceUrl }, () => undefined);
    expect(report.posts).toBe(2_500);
    const posts = await ctx.db.posts.find({}).lean();
    expect(posts).toHaveLength(2_500);

    const roots = new Map(posts.filter((post) => post.rootPostId === null).map((post) => [post._id.toString(), post]));
    const replies = posts.filter((post) => post.rootPostId !== null);
    for (const reply of replies) {
      const root = roots.get(reply.rootPostId?.toString() ?? '');
      expect(root?.channelId.toString()).toBe(reply.channelId.toString());
      expect(reply.position === 1 || reply.position === 2).toBe(true);
      expect(reply.state).toBe(root?.state);
    }
    const threads = new Set(replies.map((reply) => reply.rootPostId?.toString())).size;
    // One post in three is a thread of 2 or 3 parts: wide bounds for a random draw of ~1,700 posts.
    expect(threads / roots.size).toBeGreaterThan(0.25);
    expect(threads / roots.size).toBeLessThan(0.42);

    const byState = (state: string) => [...roots.values()].filter((root) => root.state === state);
    expect(byState('PUBLISHED').length / roots.size).toBeGreaterThan(0.75);
    for (const state of ['ERROR', 'DRAFT', 'QUEUE']) expect(byState(state).length).toBeGreaterThan(0);
    const published = posts.filter((post) => post.state === 'PUBLISHED');
    expect(published.every((post) => post.releaseId?.startsWith('seed-'))).toBe(true);
    // Queued posts are due in 2100 or later, so no job or sweep publishes them during a benchmark.
    expect(byState('QUEUE').every((root) => root.publishDate.getUTCFullYear() >= 2100)).toBe(true);

    expect(report.notifications).toBe(byState('PUBLISHED').length);
    expect(await ctx.db.notifications.countDocuments({})).toBe(report.notifications);
    const perOrganization = new Set(posts.map((post) => post.organizationId.toString()));
    const seeded = new Set(organizations.map((organization) => organization.organizationId.toString()));
    expect(perOrganization).toEqual(seeded);
  });

  it('tops a database up by the number asked for', async () => {
    const before = await ctx.db.posts.countDocuments({});
    const report = await seedPosts(ctx.db, organizations, { count: 7, instanceUrl }, () => undefined);
    expect(report.posts).toBe(7);
    expect(await ctx.db.posts.countDocuments({})).toBe(before + 7);
  });
});
