import { Types } from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomCredential } from '../../shared/crypto/secret-box.ts';
import { registerApp } from '../../shared/domain/oauth/oauth-apps.ts';
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
    expect(await api(stack.baseUrl, apiKey, '/api/public/v1/integrations')).toMatchObject({ status: 200, body: [] });
    const bearer = await api(stack.baseUrl, `Bearer ${apiKey}`, '/api/public/v1/is-connected');
    expect(bearer).toMatchObject({ status: 200, body: { connected: true } });
  });

  it('accepts an OAuth access token only while its grant is unrevoked and its app and organization exist', async () => {
    const { organizationId } = await createOrganization(ctx.db, ctx.secrets, { name: 'Token holder' });
    const { app } = await registerApp(ctx.db, ctx.secrets, organizationId, {
      name: 'Gatekeeper',
      redirectUrl: 'https://gate.example.com/cb',
    });
    /** A grant written as an exchange writes it, with its token returned in clear. */
    const grantFor = async (organization: string): Promise<string> => {
      const token = randomCredential('pos_');
      await ctx.db.oauthGrants.create({
        tokenDigest: ctx.secrets.digest(token), appId: app._id, userId: new Types.ObjectId(),
        organizationId: new Types.ObjectId(organization), codeDigest: ctx.secrets.digest(randomCredential()),
      });
      return token;
    };
    const answer = (token: string) => api(stack.baseUrl, token, '/api/public/v1/is-connected');
    const refused = { status: 401, body: { error: 'invalid_credentials' } };

    const live = await grantFor(organizationId);
    expect(await answer(live)).toMatchObject({ status: 200, body: { connected: true } });
    expect(await answer(`pos_${'x'.repeat(43)}`)).toMatchObject(refused);

    const revoked = await grantFor(organizationId);
    await ctx.db.oauthGrants.updateOne({ tokenDigest: ctx.secrets.digest(revoked) }, {
      $set: { revokedAt: new Date() },
    });
    expect(await answer(revoked)).toMatchObject(refused);

    const orphaned = await grantFor(new Types.ObjectId().toString());
    expect(await answer(orphaned)).toMatchObject(refused);

    // Removed as deleteApp removes it: the record, and every api process told to forget its tokens.
    await ctx.db.oauthApps.deleteOne({ _id: app._id });
    await stack.caches.changed([`app:${app._id.toString()}`]);
    expect(await answer(live)).toMatchObject(refused);
  });

  it('stores the key only as a digest and a sealed copy', async () => {
    const stored = await ctx.db.organizations.findOne({ name: 'Acme' }).lean();
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
