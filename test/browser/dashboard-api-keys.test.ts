import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../support/fixtures.ts';
import { startStack, type RunningStack } from '../support/stack.ts';
import { createTestContext, type TestContext } from '../support/test-context.ts';
import { DashboardClient, newAccount } from './dashboard-client.ts';

const newKeyPattern = /id="new-api-key"[^>]*>(spk_[A-Za-z0-9_-]{43})</;

/** The settings page's named keys, spoken to over HTTP as a browser would. */
describe('dashboard: named API keys on the settings page', () => {
  let ctx: TestContext;
  let stack: RunningStack;
  let client: DashboardClient;

  beforeAll(async () => {
    ctx = await createTestContext();
    stack = await startStack(ctx, { workers: false });
    client = new DashboardClient(stack.baseUrl);
    expect((await client.signUp(newAccount('keys'))).status).toBe(302);
  });
  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
  });

  it('creates a key from the form, shows it once, lists its scopes, expiry and last use, and revokes it', async () => {
    const empty = await client.get('/settings');
    expect(empty.status).toBe(200);
    expect(empty.html).toContain('No named keys yet.');

    const refused = await client.post('/settings/api-keys', { name: 'no scopes' });
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('Choose at least one scope.');
    expect(refused.html).toContain('value="no scopes"');

    const created = await client.post('/settings/api-keys', {
      name: 'publisher', scopes: ['posts', 'uploads'], expires: '2099-01-01',
    });
    expect(created.status).toBe(201);
    const key = newKeyPattern.exec(created.html)?.[1] ?? '';
    expect(key).not.toBe('');
    expect(created.html).toContain('posts, uploads');
    expect(created.html).toContain('2099-01-01 00:00 UTC');
    expect(created.html).toContain('not yet');

    expect((await api(stack.baseUrl, key, '/api/public/v1/is-connected')).status).toBe(200);
    const later = await client.get('/settings');
    expect(later.html).not.toContain(key);
    expect(later.html).not.toContain('not yet');
    const keyId = /action="\/settings\/api-keys\/([0-9a-f]{24})\/revoke"/.exec(later.html)?.[1] ?? '';
    expect(keyId).not.toBe('');

    const forged = await client.post(`/settings/api-keys/${keyId}/revoke`, {}, { csrf: 'not-the-token' });
    expect(forged.status).toBe(403);
    expect((await api(stack.baseUrl, key, '/api/public/v1/is-connected')).status).toBe(200);

    const revoked = await client.post(`/settings/api-keys/${keyId}/revoke`, {});
    expect(revoked.status).toBe(200);
    expect(revoked.html).toContain('The key was revoked');
    expect(revoked.html).toContain('No named keys yet.');
    expect(await api(stack.baseUrl, key, '/api/public/v1/is-connected'))
      .toMatchObject({ status: 401, body: { error: 'invalid_credentials' } });
  });
});
