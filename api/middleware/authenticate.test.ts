import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../../shared/domain/organizations/organizations.ts';
import { api } from '../../test/support/fixtures.ts';
import { startStack, type RunningStack } from '../../test/support/stack.ts';
import { createTestContext, type TestContext } from '../../test/support/test-context.ts';

describe('public API authentication', () => {
  let ctx: TestContext;
  let stack: RunningStack;
  let apiKey: string;

  beforeAll(async () => {
    ctx = await createTestContext();
    stack = await startStack(ctx, { workers: false });
    ({ apiKey } = await createOrganization(ctx.db, ctx.secrets, { name: 'Acme' }));
  });
  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
  });

  it('answers 401 missing_credentials without an Authorization header', async () => {
    const response = await api(stack.baseUrl, null, '/api/public/v1/integrations');
    expect(response.status).toBe(401);
    expect(response.body).toMatchObject({ statusCode: 401, error: 'missing_credentials' });
  });

  it('answers 401 invalid_credentials for an unknown key', async () => {
    for (const credential of ['sps_not-a-real-key', 'garbage', `${apiKey}x`]) {
      const response = await api(stack.baseUrl, credential, '/api/public/v1/integrations');
      expect(response.status).toBe(401);
      expect(response.body).toMatchObject({ error: 'invalid_credentials' });
    }
  });

  it('accepts the raw key and the Bearer form', async () => {
    expect((await api(stack.baseUrl, apiKey, '/api/public/v1/integrations')).status).toBe(200);
    expect((await api(stack.baseUrl, `Bearer ${apiKey}`, '/api/public/v1/integrations')).status).toBe(200);
  });

  it('stores the key only as a digest and a sealed copy', async () => {
    const stored = await ctx.db.organizations.findOne({}).lean();
    expect(JSON.stringify(stored)).not.toContain(apiKey);
    expect(stored?.apiKeyDigest).toBe(ctx.secrets.digest(apiKey));
    expect(ctx.secrets.open(stored?.apiKeySealed ?? '')).toBe(apiKey);
  });

  it('answers JSON 404 for unknown routes and echoes a request id', async () => {
    const response = await api(stack.baseUrl, apiKey, '/api/public/v1/nope', { headers: { 'X-Request-Id': 'req-12345678' } });
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ error: 'not_found' });
    expect(response.headers.get('x-request-id')).toBe('req-12345678');
  });
});
