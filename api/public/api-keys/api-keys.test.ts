import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../../../shared/domain/organizations/organizations.ts';
import { api, organizationWithMastodon } from '../../../test/support/fixtures.ts';
import { startStack, type RunningStack } from '../../../test/support/stack.ts';
import { createTestContext, type TestContext } from '../../../test/support/test-context.ts';

const v1 = '/api/public/v1';

interface KeyAnswer {
  id: string;
  name: string;
  scopes: string[];
  start: string;
  key: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
}

describe('named API keys with scopes, expiry, last use and revoke', () => {
  let ctx: TestContext;
  let stack: RunningStack;
  let original: string;
  let channelId: string;

  beforeAll(async () => {
    ctx = await createTestContext();
    stack = await startStack(ctx, { workers: false });
    // A draft is stored without reaching the instance: no simulator needed.
    ({ apiKey: original, channelId } = await organizationWithMastodon(ctx, 'https://mastodon.example', 'token'));
  });
  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
  });

  async function createKey(body: Record<string, unknown>, as = original): Promise<KeyAnswer> {
    const created = await api(stack.baseUrl, as, `${v1}/api-keys`, { method: 'POST', body });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body as KeyAnswer;
  }
  const webhook = { url: 'https://hooks.example.com/sps', events: ['post.published'] };

  it('creates a key whose secret is shown once and stored only as a digest', async () => {
    const key = await createKey({ name: 'scheduler', scopes: ['posts'] });
    expect(key).toMatchObject({ name: 'scheduler', scopes: ['posts'], expiresAt: null, lastUsedAt: null });
    expect(key.key).toMatch(/^spk_[A-Za-z0-9_-]{43}$/);
    expect(key.key.startsWith(key.start)).toBe(true);
    const stored = await ctx.db.apiKeys.findById(key.id).lean();
    expect(JSON.stringify(stored)).not.toContain(key.key);
    expect(stored?.keyDigest).toBe(ctx.secrets.digest(key.key));
    const listed = await api(stack.baseUrl, original, `${v1}/api-keys`);
    expect(listed.status).toBe(200);
    expect(JSON.stringify(listed.body)).not.toContain(key.key);
    expect(listed.body).toMatchObject({ keys: [{ id: key.id, name: 'scheduler', scopes: ['posts'] }] });
  });

  it('lets a posts-only key create posts but answers 403 insufficient_scope, naming the scope, elsewhere', async () => {
    const { key } = await createKey({ name: 'posts only', scopes: ['posts'] });
    const draft = { type: 'draft', posts: [{ integration: { id: channelId }, value: [{ content: 'Scoped' }] }] };
    const posted = await api(stack.baseUrl, key, `${v1}/posts`, { method: 'POST', body: draft });
    expect(posted.status, JSON.stringify(posted.body)).toBe(201);
    expect((await api(stack.baseUrl, key, `${v1}/posts?startDate=2030-01-01T00:00:00Z&endDate=2030-01-02T00:00:00Z`))
      .status).toBe(200);
    const hooks = await api(stack.baseUrl, key, `${v1}/webhooks`, { method: 'POST', body: webhook });
    expect(hooks).toMatchObject({ status: 403, body: { statusCode: 403, error: 'insufficient_scope' } });
    expect((hooks.body as { message: string }).message).toContain('webhooks');
    const listHooks = await api(stack.baseUrl, key, `${v1}/webhooks`);
    expect(listHooks).toMatchObject({ status: 403, body: { error: 'insufficient_scope' } });
    expect((listHooks.body as { message: string }).message).toContain('webhooks or read');
    expect(await api(stack.baseUrl, key, `${v1}/is-connected`)).toMatchObject({ status: 200 });
    // A narrower key cannot see or mint keys.
    expect(await api(stack.baseUrl, key, `${v1}/api-keys`)).toMatchObject({ status: 403 });
    const minted = await api(stack.baseUrl, key, `${v1}/api-keys`, {
      method: 'POST', body: { name: 'wider', scopes: ['posts', 'webhooks'] },
    });
    expect(minted).toMatchObject({ status: 403, body: { error: 'insufficient_scope' } });
  });

  it('lets a read key GET every route but not POST', async () => {
    const { key } = await createKey({ name: 'reader', scopes: ['read'] });
    for (const path of ['/integrations', '/webhooks', '/notifications', '/groups']) {
      expect((await api(stack.baseUrl, key, `${v1}${path}`)).status, path).toBe(200);
    }
    const created = await api(stack.baseUrl, key, `${v1}/webhooks`, { method: 'POST', body: webhook });
    expect(created).toMatchObject({ status: 403, body: { error: 'insufficient_scope' } });
    const posted = await api(stack.baseUrl, key, `${v1}/posts`, { method: 'POST', body: { type: 'now', posts: [] } });
    expect(posted).toMatchObject({ status: 403, body: { error: 'insufficient_scope' } });
  });

  it('revokes one key at once and leaves the others working; a revoked key is 401 like a wrong one', async () => {
    const first = await createKey({ name: 'first', scopes: ['read'] });
    const second = await createKey({ name: 'second', scopes: ['read'] });
    // Both cached by the api before the revoke.
    expect((await api(stack.baseUrl, first.key, `${v1}/integrations`)).status).toBe(200);
    expect((await api(stack.baseUrl, second.key, `${v1}/integrations`)).status).toBe(200);
    const revoked = await api(stack.baseUrl, original, `${v1}/api-keys/${first.id}`, { method: 'DELETE' });
    expect(revoked).toMatchObject({ status: 200, body: { id: first.id, revoked: true } });
    expect(await api(stack.baseUrl, first.key, `${v1}/integrations`))
      .toMatchObject({ status: 401, body: { error: 'invalid_credentials' } });
    expect((await api(stack.baseUrl, second.key, `${v1}/integrations`)).status).toBe(200);
    expect((await api(stack.baseUrl, original, `${v1}/integrations`)).status).toBe(200);
    const again = await api(stack.baseUrl, original, `${v1}/api-keys/${first.id}`, { method: 'DELETE' });
    expect(again).toMatchObject({ status: 404, body: { error: 'not_found' } });
    const listed = (await api(stack.baseUrl, original, `${v1}/api-keys`)).body as { keys: { id: string }[] };
    expect(listed.keys.map((key) => key.id)).not.toContain(first.id);
    expect(listed.keys.map((key) => key.id)).toContain(second.id);
  });

  it('refuses an expired key with 401 invalid_credentials, even while the api has it cached', async () => {
    const expiresAt = new Date(Date.now() + 1500).toISOString();
    const { key } = await createKey({ name: 'short lived', scopes: ['read'], expiresAt });
    expect((await api(stack.baseUrl, key, `${v1}/integrations`)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1600));
    expect(await api(stack.baseUrl, key, `${v1}/integrations`))
      .toMatchObject({ status: 401, body: { error: 'invalid_credentials' } });
  });

  it('records the last use, at most once a minute', async () => {
    const { id, key } = await createKey({ name: 'counted', scopes: ['read'] });
    const lastUsed = async (): Promise<string | null> => {
      const { keys } = (await api(stack.baseUrl, original, `${v1}/api-keys`)).body as { keys: KeyAnswer[] };
      return keys.find((listed) => listed.id === id)?.lastUsedAt ?? null;
    };
    expect(await lastUsed()).toBeNull();
    const before = Date.now();
    expect((await api(stack.baseUrl, key, `${v1}/integrations`)).status).toBe(200);
    const first = await lastUsed();
    expect(first).not.toBeNull();
    expect(Date.parse(first ?? '')).toBeGreaterThanOrEqual(before - 1000);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await api(stack.baseUrl, key, `${v1}/integrations`)).status).toBe(200);
    expect(await lastUsed()).toBe(first);
  });

  it('refuses bad bodies with 400 validation_failed and ids that are not ours with 404', async () => {
    const bad = [
      { name: '', scopes: ['read'] },
      { name: 'x', scopes: [] },
      { name: 'x', scopes: ['everything'] },
      { name: 'x', scopes: ['read'], expiresAt: 'tomorrow' },
      { name: 'x', scopes: ['read'], expiresAt: '2001-01-01T00:00:00Z' },
    ];
    for (const body of bad) {
      const answer = await api(stack.baseUrl, original, `${v1}/api-keys`, { method: 'POST', body });
      expect(answer, JSON.stringify(body)).toMatchObject({ status: 400, body: { error: 'validation_failed' } });
    }
    const { organizationId } = await createOrganization(ctx.db, ctx.secrets, { name: 'Other' });
    const other = await ctx.db.organizations.findById(organizationId).lean();
    expect(other).not.toBeNull();
    const foreign = await ctx.db.apiKeys.create({
      organizationId, name: 'theirs', scopes: ['read'], keyDigest: 'd', keyStart: 'spk_xxxxxx',
    });
    for (const id of [foreign._id.toString(), 'not-an-id']) {
      const answer = await api(stack.baseUrl, original, `${v1}/api-keys/${id}`, { method: 'DELETE' });
      expect(answer, id).toMatchObject({ status: 404, body: { error: 'not_found' } });
    }
  });

  it('keeps the original key working everywhere, key management included; a full-scope named key too', async () => {
    expect((await api(stack.baseUrl, original, `${v1}/webhooks`, { method: 'POST', body: webhook })).status).toBe(201);
    const everything = ['read', 'posts', 'uploads', 'analytics', 'webhooks', 'integrations'];
    const full = await createKey({ name: 'admin', scopes: everything });
    const minted = await createKey({ name: 'minted', scopes: ['read'] }, full.key);
    expect(minted.scopes).toEqual(['read']);
    expect((await api(stack.baseUrl, full.key, `${v1}/webhooks`)).status).toBe(200);
  });
});
