import { Types } from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../../../shared/domain/organizations/organizations.ts';
import { api } from '../../../test/support/fixtures.ts';
import { startStack, type RunningStack } from '../../../test/support/stack.ts';
import { createTestContext, type TestContext } from '../../../test/support/test-context.ts';

interface Page { notifications: { id: string; content: string; link: string | null; createdAt: string }[]; total: number; page: number; limit: number; hasMore: boolean }

describe('GET /notifications', () => {
  let ctx: TestContext;
  let stack: RunningStack;
  let apiKey: string;
  const start = Date.parse('2026-01-01T00:00:00Z');

  beforeAll(async () => {
    ctx = await createTestContext();
    stack = await startStack(ctx, { workers: false });
    const organization = await createOrganization(ctx.db, ctx.secrets, { name: 'Acme' });
    apiKey = organization.apiKey;
    const other = await createOrganization(ctx.db, ctx.secrets, { name: 'Other' });
    const rows = Array.from({ length: 250 }, (_, index) => ({
      organizationId: new Types.ObjectId(organization.organizationId),
      content: `notification ${index}`,
      link: index % 2 === 0 ? `https://example.com/${index}` : null,
      createdAt: new Date(start + index * 1000),
    }));
    rows.push({ organizationId: new Types.ObjectId(other.organizationId), content: 'not yours', link: null, createdAt: new Date(start + 999_999) });
    await ctx.db.notifications.insertMany(rows);
  });
  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
  });

  it('returns page 0 by default: the newest 100, with total and hasMore', async () => {
    const response = await api(stack.baseUrl, apiKey, '/api/public/v1/notifications');
    expect(response.status).toBe(200);
    const page = response.body as Page;
    expect(page).toMatchObject({ total: 250, page: 0, limit: 100, hasMore: true });
    expect(page.notifications).toHaveLength(100);
    expect(page.notifications[0]).toEqual({ id: expect.any(String) as string, content: 'notification 249', link: null, createdAt: new Date(start + 249_000).toISOString() });
    expect(page.notifications[99]?.content).toBe('notification 150');
  });

  it('pages on, 0-indexed, and hasMore is false on the last page', async () => {
    const second = (await api(stack.baseUrl, apiKey, '/api/public/v1/notifications?page=1')).body as Page;
    expect(second.notifications[0]?.content).toBe('notification 149');
    expect(second.hasMore).toBe(true);
    const last = (await api(stack.baseUrl, apiKey, '/api/public/v1/notifications?page=2')).body as Page;
    expect(last).toMatchObject({ page: 2, limit: 100, hasMore: false, total: 250 });
    expect(last.notifications.map((row) => row.content)).toEqual(Array.from({ length: 50 }, (_, index) => `notification ${49 - index}`));
    const beyond = (await api(stack.baseUrl, apiKey, '/api/public/v1/notifications?page=7')).body as Page;
    expect(beyond).toMatchObject({ notifications: [], page: 7, hasMore: false });
  });

  it.each(['-1', '1.5', 'abc', '', '1e3', '99999999999999999999'])('answers 400 for page=%s', async (value) => {
    const response = await api(stack.baseUrl, apiKey, `/api/public/v1/notifications?page=${encodeURIComponent(value)}`);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ statusCode: 400, error: 'validation_failed' });
    expect((response.body as { message: string }).message).toMatch(/^page: /);
  });

  it('answers 400 when page is given twice', async () => {
    const response = await api(stack.baseUrl, apiKey, '/api/public/v1/notifications?page=1&page=2');
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({
      statusCode: 400,
      error: 'validation_failed',
      message: 'page: page must be given once, as a whole number',
      details: [{ path: 'page' }],
    });
  });
});
