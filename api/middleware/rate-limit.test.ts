import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../../shared/domain/organizations/organizations.ts';
import { api } from '../../test/support/fixtures.ts';
import { startStack, waitFor, type RunningStack } from '../../test/support/stack.ts';
import { createTestContext, type TestContext } from '../../test/support/test-context.ts';

describe('public API rate limit (30 per hour per organization)', () => {
  let ctx: TestContext;
  let stack: RunningStack;

  beforeAll(async () => {
    ctx = await createTestContext({ PUBLIC_API_RATE_LIMIT: '30', PUBLIC_API_RATE_WINDOW_SECONDS: '3600' });
    stack = await startStack(ctx, { workers: false });
  });
  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
  });

  const newOrganization = () => createOrganization(ctx.db, ctx.secrets, { name: 'Rate' });

  it('lets exactly 30 of 60 simultaneous requests through, ten rounds in a row', async () => {
    for (let round = 0; round < 10; round += 1) {
      const { apiKey } = await newOrganization();
      const responses = await Promise.all(Array.from({ length: 60 }, () => api(stack.baseUrl, apiKey, '/api/public/v1/is-connected')));
      const statuses = responses.map((response) => response.status);
      expect(statuses.filter((status) => status === 200), `round ${round}`).toHaveLength(30);
      expect(statuses.filter((status) => status === 429), `round ${round}`).toHaveLength(30);
    }
  });

  it('sends the limit headers on every answer and Retry-After with the 429', async () => {
    const { apiKey } = await newOrganization();
    const first = await api(stack.baseUrl, apiKey, '/api/public/v1/is-connected');
    expect(first.headers.get('x-ratelimit-limit')).toBe('30');
    expect(first.headers.get('x-ratelimit-remaining')).toBe('29');
    const reset = Number(first.headers.get('x-ratelimit-reset'));
    expect(reset).toBeGreaterThan(3590);
    expect(reset).toBeLessThanOrEqual(3600);
    expect(first.headers.get('ratelimit-policy')).toBe('"organization";q=30;w=3600');
    expect(first.headers.get('ratelimit')).toMatch(/^"organization";r=29;t=\d+$/);

    // An error answer is counted and carries the headers too.
    const failed = await api(stack.baseUrl, apiKey, '/api/public/v1/posts/000000000000000000000000');
    expect(failed.status).toBe(404);
    expect(failed.headers.get('x-ratelimit-remaining')).toBe('28');

    for (let index = 0; index < 28; index += 1) await api(stack.baseUrl, apiKey, '/api/public/v1/is-connected');
    const over = await api(stack.baseUrl, apiKey, '/api/public/v1/is-connected');
    expect(over.status).toBe(429);
    expect(over.body).toMatchObject({ statusCode: 429, error: 'rate_limited' });
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(3500);
    expect(over.headers.get('x-ratelimit-remaining')).toBe('0');
  });

  it('counts per organization, whichever form of the credential is used', async () => {
    const one = await newOrganization();
    const other = await newOrganization();
    const raw = await Promise.all(Array.from({ length: 20 }, () => api(stack.baseUrl, one.apiKey, '/api/public/v1/is-connected')));
    const bearer = await Promise.all(Array.from({ length: 20 }, () => api(stack.baseUrl, `Bearer ${one.apiKey}`, '/api/public/v1/is-connected')));
    expect([...raw, ...bearer].filter((response) => response.status === 200)).toHaveLength(30);
    const untouched = await api(stack.baseUrl, other.apiKey, '/api/public/v1/is-connected');
    expect(untouched).toMatchObject({ status: 200, body: { connected: true } });
    expect(untouched.headers.get('x-ratelimit-remaining')).toBe('29');
  });

  it('does not count requests without a valid credential', async () => {
    const { apiKey } = await newOrganization();
    for (let index = 0; index < 5; index += 1) {
      const refused = await api(stack.baseUrl, 'sps_wrong', '/api/public/v1/is-connected');
      expect(refused).toMatchObject({ status: 401, body: { statusCode: 401, error: 'invalid_credentials' } });
      // No organization was recognised, so no organization's budget is shown.
      expect(refused.headers.get('x-ratelimit-remaining')).toBeNull();
    }
    expect((await api(stack.baseUrl, apiKey, '/api/public/v1/is-connected')).headers.get('x-ratelimit-remaining')).toBe('29');
  });

  it('starts a new window when the old one ends', async () => {
    // Three requests must land in one window: 3 s leaves a busy machine a wide margin.
    const short = await createTestContext({ PUBLIC_API_RATE_LIMIT: '2', PUBLIC_API_RATE_WINDOW_SECONDS: '3' });
    const shortStack = await startStack(short, { workers: false });
    try {
      const { apiKey } = await createOrganization(short.db, short.secrets, { name: 'Short' });
      const burst = await Promise.all(Array.from({ length: 3 }, () => api(shortStack.baseUrl, apiKey, '/api/public/v1/is-connected')));
      expect(burst.map((response) => response.status).sort()).toEqual([200, 200, 429]);
      const reset = Number(burst.find((response) => response.status === 429)?.headers.get('retry-after'));
      expect(reset).toBeGreaterThanOrEqual(1);
      expect(reset).toBeLessThanOrEqual(3);
      const started = Date.now();
      const next = await waitFor(async () => {
        const response = await api(shortStack.baseUrl, apiKey, '/api/public/v1/is-connected');
        return response.status === 200 ? response : undefined;
      }, { timeoutMs: 10_000, what: 'the next window' });
      // The window ends when Retry-After said, not later; the new one starts with a full budget.
      expect(Date.now() - started).toBeLessThan(reset * 1000 + 2_000);
      expect(next.headers.get('x-ratelimit-remaining')).toBe('1');
    } finally {
      await shortStack.close();
      await short.cleanup();
    }
  });
});
