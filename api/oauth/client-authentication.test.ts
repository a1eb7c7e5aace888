import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, type StoredUser } from '../../shared/domain/accounts/accounts.ts';
import { approve } from '../../shared/domain/oauth/authorization.ts';
import { registerApp, type StoredApp } from '../../shared/domain/oauth/oauth-apps.ts';
import { api } from '../../test/support/fixtures.ts';
import { startStack, type RunningStack } from '../../test/support/stack.ts';
import { createTestContext, type TestContext } from '../../test/support/test-context.ts';

type Answer = Awaited<ReturnType<typeof api>>;

/**
 * How a client may authenticate at POST /api/oauth/token: in the body (the spec's JSON, or a
 * form) or with HTTP Basic (RFC 6749 §2.3.1, what client libraries send by default).
 */
describe('OAuth token endpoint: client authentication', () => {
  let ctx: TestContext;
  let stack: RunningStack;
  let member: { user: StoredUser; organizationId: string };
  let app: StoredApp;
  let clientSecret: string;
  let other: { app: StoredApp; clientSecret: string };

  beforeAll(async () => {
    ctx = await createTestContext();
    stack = await startStack(ctx, { workers: false });
    const password = 'correct horse battery';
    const owner = await signUp(ctx.db, ctx.secrets, {
      email: 'owner@example.com',
      password,
      organizationName: 'Maker',
    });
    member = await signUp(ctx.db, ctx.secrets, {
      email: 'member@example.com',
      password,
      organizationName: 'Customer',
    });
    const redirectUrl = 'https://app.example.com/callback';
    ({ app, clientSecret } = await registerApp(ctx.db, ctx.secrets, owner.organizationId, {
      name: 'Basic app',
      redirectUrl,
    }));
    other = await registerApp(ctx.db, ctx.secrets, owner.organizationId, { name: 'Other app', redirectUrl });
  });
  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
  });

  const newCode = (forApp = app) =>
    approve(ctx.db, ctx.secrets, {
      app: forApp,
      user: member.user,
      organizationId: member.organizationId,
      now: new Date(),
    });
  /** RFC 6749 §2.3.1: each half form-urlencoded, then `id:secret` in base64. */
  const basic = (id: string, secret: string, encode = (part: string) => encodeURIComponent(part)): string =>
    `Basic ${Buffer.from(`${encode(id)}:${encode(secret)}`).toString('base64')}`;
  const postForm = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
    api(stack.baseUrl, null, '/api/oauth/token', {
      method: 'POST',
      rawBody: new URLSearchParams(fields).toString(),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
    });
  const postJson = (body: Record<string, string>, headers: Record<string, string> = {}) =>
    api(stack.baseUrl, null, '/api/oauth/token', { method: 'POST', body, headers });
  const grant = (code: string) => ({ grant_type: 'authorization_code', code });

  /** A 200 with the contract's token body, whose token works on the public API. */
  const expectIssued = async (answer: Answer): Promise<void> => {
    expect(answer).toMatchObject({
      status: 200,
      body: {
        id: member.organizationId,
        token_type: 'bearer',
        access_token: expect.stringMatching(/^pos_/) as unknown,
      },
    });
    const token = (answer.body as { access_token: string }).access_token;
    expect(await api(stack.baseUrl, token, '/api/public/v1/is-connected')).toMatchObject({ status: 200 });
  };

  it('accepts Basic credentials with a form body, as client libraries send them', async () => {
    await expectIssued(await postForm(grant(await newCode()), { Authorization: basic(app.clientId, clientSecret) }));
  });

  it('accepts Basic credentials with the spec\'s JSON body', async () => {
    await expectIssued(await postJson(grant(await newCode()), { Authorization: basic(app.clientId, clientSecret) }));
  });

  it('form-decodes each half of the Basic credentials, and reads the scheme name in any case', async () => {
    // Every character percent-encoded: a server that skipped the decoding would see another client.
    const everyCharacter = (part: string) => Buffer.from(part).toString('hex').replace(/../g, '%$&');
    const encoded = basic(app.clientId, clientSecret, everyCharacter).replace(/^Basic/, 'bAsIc');
    await expectIssued(await postForm(grant(await newCode()), { Authorization: encoded }));
  });

  it('still accepts the credentials in the body, JSON or form, and ignores other Authorization schemes', async () => {
    const inBody = { client_id: app.clientId, client_secret: clientSecret };
    await expectIssued(await postJson({ ...grant(await newCode()), ...inBody }));
    await expectIssued(await postForm({ ...grant(await newCode()), ...inBody }));
    await expectIssued(
      await postJson({ ...grant(await newCode()), ...inBody }, { Authorization: 'Bearer something' }),
    );
  });

  it('accepts Basic together with a body naming the same client', async () => {
    const code = await newCode();
    const sameClient = { ...grant(code), client_id: app.clientId, client_secret: clientSecret };
    await expectIssued(await postForm(sameClient, { Authorization: basic(app.clientId, clientSecret) }));
  });

  it('refuses Basic and a body that name different clients with invalid_request, and consumes nothing', async () => {
    const code = await newCode();
    const authorization = { Authorization: basic(app.clientId, clientSecret) };
    const otherId = await postForm({ ...grant(code), client_id: other.app.clientId }, authorization);
    expect(otherId).toMatchObject({
      status: 400,
      body: { error: 'invalid_request', error_description: expect.stringMatching(/client_id/) as unknown },
    });
    const otherSecret = await postJson({ ...grant(code), client_secret: other.clientSecret }, authorization);
    expect(otherSecret).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    await expectIssued(await postForm(grant(code), authorization));
  });

  it('answers a wrong Basic secret, an unknown client or malformed credentials with 401 invalid_client', async () => {
    const code = await newCode();
    const refused = [
      basic(app.clientId, 'pcs_wrong'),
      basic(app.clientId, other.clientSecret),
      basic('pca_ffffffffffffffffffffffffffffffff', clientSecret),
      `Basic ${Buffer.from(`${app.clientId}${clientSecret}`).toString('base64')}`,
      'Basic %%%',
    ];
    for (const authorization of refused) {
      const answer = await postForm(grant(code), { Authorization: authorization });
      expect({ authorization, status: answer.status, body: answer.body }).toMatchObject({
        authorization,
        status: 401,
        body: { error: 'invalid_client', error_description: expect.any(String) as unknown },
      });
      expect(answer.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
      expect(answer.headers.get('cache-control')).toBe('no-store');
    }
    await expectIssued(await postForm(grant(code), { Authorization: basic(app.clientId, clientSecret) }));
  });

  it('keeps the body-only errors as they were', async () => {
    const code = await newCode();
    expect(await postForm(grant(code))).toMatchObject({
      status: 400,
      body: { error: 'invalid_request', error_description: 'client_id is required' },
    });
    expect(await postJson({ ...grant(code), client_id: app.clientId })).toMatchObject({
      status: 400,
      body: { error: 'invalid_request', error_description: 'client_secret is required' },
    });
    const unsupported = { grant_type: 'client_credentials', code };
    expect(await postForm(unsupported, { Authorization: basic(app.clientId, clientSecret) })).toMatchObject({
      status: 400,
      body: { error: 'unsupported_grant_type' },
    });
  });
});
