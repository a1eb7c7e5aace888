import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, organizationWithMastodon } from '../../../test/support/fixtures.ts';
import { startStack, type RunningStack } from '../../../test/support/stack.ts';
import { createTestContext, type TestContext } from '../../../test/support/test-context.ts';

describe('GET /integrations', () => {
  let ctx: TestContext;
  let stack: RunningStack;

  beforeAll(async () => {
    ctx = await createTestContext();
    stack = await startStack(ctx, { workers: false });
  });
  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
  });

  it('lists only the caller\'s channels, in the contract\'s shape, without tokens', async () => {
    const mine = await organizationWithMastodon(ctx, 'http://127.0.0.1:1234', 'secret-token-1');
    await organizationWithMastodon(ctx, 'http://127.0.0.1:1234', 'secret-token-2');
    const response = await api(stack.baseUrl, mine.apiKey, '/api/public/v1/integrations');
    expect(response.status).toBe(200);
    expect(response.body).toEqual([{ id: mine.channelId, name: 'Our Mastodon', identifier: 'mastodon', picture: null, disabled: false, refreshNeeded: false, profile: null }]);
    expect(JSON.stringify(response.body)).not.toContain('secret-token');
  });

  it('answers an empty array for an organization without channels', async () => {
    const other = await organizationWithMastodon(ctx, 'http://127.0.0.1:1234', 't');
    await ctx.db.channels.deleteMany({ _id: other.channelId });
    expect((await api(stack.baseUrl, other.apiKey, '/api/public/v1/integrations')).body).toEqual([]);
  });
});
