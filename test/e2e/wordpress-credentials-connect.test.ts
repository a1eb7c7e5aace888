import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { expectError, v1 } from '../support/channel-test-kit.ts';
import { createOrganization } from '../../shared/domain/organizations/organizations.ts';
import { api } from '../support/fixtures.ts';
import { startStack, type RunningStack } from '../support/stack.ts';
import { createTestContext, type TestContext } from '../support/test-context.ts';
import { startTestWordpress, type TestWordpress, type WordpressUser } from '../support/test-wordpress.ts';

/**
 * A real WordPress connected by an API client that holds the application password
 * (POST /integrations/wordpress), and what a post sent there without its required settings is told.
 */
describe('WordPress connected with POST /integrations/wordpress', () => {
  let wp: TestWordpress;
  let ctx: TestContext;
  let stack: RunningStack;
  let author: WordpressUser;

  beforeAll(async () => {
    wp = await startTestWordpress();
    author = await wp.createUser('author', 'cora');
    ctx = await createTestContext({ PLATFORM_TIMEOUT_MS: '5000' });
    stack = await startStack(ctx, { workers: false });
  }, 240_000);
  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
    await wp.close();
  });

  const connect = (apiKey: string, applicationPassword: string) => api(
    stack.baseUrl, apiKey, `${v1}/integrations/wordpress`,
    { method: 'POST', body: { siteUrl: wp.url, username: author.login, applicationPassword } },
  );

  it('refuses a wrong application password with WordPress\'s words, then connects the site', async () => {
    const { apiKey, organizationId } = await createOrganization(ctx.db, ctx.secrets, { name: 'WordPress client' });
    const refused = await connect(apiKey, 'abcd efgh ijkl mnop qrst uvwx');
    expect(expectError(refused, 422, 'connect_refused')).toMatch(/^You are not currently logged in\./);

    const created = await connect(apiKey, author.applicationPassword);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ identifier: 'wordpress', name: author.name, profile: author.login });
    const { id } = z.object({ id: z.string() }).parse(created.body);
    const channel = await ctx.db.channels.findById(id).lean();
    expect(channel?.organizationId.toString()).toBe(organizationId);
    expect(channel?.instanceUrl).toBe(wp.url);
  });

  it('tells a post without a title that a WordPress post needs one, not zod\'s type error', async () => {
    const { apiKey } = await createOrganization(ctx.db, ctx.secrets, { name: 'WordPress writer' });
    const { id } = z.object({ id: z.string() }).parse((await connect(apiKey, author.applicationPassword)).body);
    // A draft may lack settings; a post meant to go out is checked against the platform.
    const post = { integration: { id }, settings: { post_type: 'posts' }, value: [{ content: 'Hi' }] };
    const date = new Date(Date.now() + 3_600_000).toISOString();
    const answer = await api(stack.baseUrl, apiKey, `${v1}/posts`, {
      method: 'POST', body: { type: 'schedule', date, posts: [post] },
    });
    expectError(answer, 400, 'validation_failed');
    const message = `WordPress channel "${author.name}": a WordPress post needs a title`;
    expect(answer.body).toMatchObject({ details: [{ path: 'posts.0.settings.title', message }] });
  });
});
