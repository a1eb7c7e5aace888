import {
  discoverAuthorizationServerMetadata, discoverOAuthProtectedResourceMetadata, exchangeAuthorization,
  extractWWWAuthenticateParams, registerClient, startAuthorization,
} from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decideOnConsent } from '../../test/browser/consent-form.ts';
import { DashboardClient, newAccount } from '../../test/browser/dashboard-client.ts';
import { api } from '../../test/support/fixtures.ts';
import { freePort } from '../../test/support/free-port.ts';
import { startStack, type RunningStack } from '../../test/support/stack.ts';
import { createTestContext, type TestContext } from '../../test/support/test-context.ts';

const redirectUri = 'http://127.0.0.1:9/callback';

/**
 * Dynamic Client Registration (RFC 7591) and the public-client flow it opens: an MCP client that
 * knows only the server URL, driven by the MCP SDK's own OAuth functions, registers, gets a person's
 * approval on the consent page, exchanges the code with PKCE and no secret, and calls /mcp.
 */
describe('POST /api/oauth/register', () => {
  let ctx: TestContext;
  let stack: RunningStack;
  let origin: string;

  beforeAll(async () => {
    // The issuer and the resource are the api's own address, so the SDK's discovery reaches them.
    const port = await freePort();
    origin = `http://127.0.0.1:${String(port)}`;
    ctx = await createTestContext({ FRONTEND_URL: origin, BACKEND_URL: `${origin}/api` });
    stack = await startStack(ctx, { workers: false, port });
  });
  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
  });

  const register = (body: unknown) => api(stack.baseUrl, null, '/api/oauth/register', { method: 'POST', body });
  const publicClient = { client_name: 'Agent host', redirect_uris: [redirectUri], token_endpoint_auth_method: 'none' };

  it('registers a public client: 201 with a client id and no secret, owned by no organization', async () => {
    const answer = await register({ ...publicClient, grant_types: ['authorization_code', 'refresh_token'] });
    expect(answer).toMatchObject({
      status: 201,
      body: {
        client_id: expect.stringMatching(/^pca_[0-9a-f]{32}$/) as unknown,
        client_name: 'Agent host', redirect_uris: [redirectUri], token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code'], response_types: ['code'],
      },
    });
    expect(answer.body).not.toHaveProperty('client_secret');
    expect(answer.headers.get('cache-control')).toBe('no-store');
    const clientId = (answer.body as { client_id: string }).client_id;
    const stored = await ctx.db.oauthApps.findOne({ clientId }).lean();
    expect(stored).toMatchObject({ organizationId: null, clientSecretDigest: null, name: 'Agent host' });
  });

  it('gives a confidential client a secret the token endpoint accepts', async () => {
    const answer = await register({ client_name: 'Server app', redirect_uris: ['https://app.example/cb'] });
    expect(answer).toMatchObject({
      status: 201,
      body: {
        token_endpoint_auth_method: 'client_secret_basic', client_secret_expires_at: 0,
        client_secret: expect.stringMatching(/^pcs_/) as unknown,
      },
    });
  });

  it('refuses bad metadata with RFC 7591 errors, registering nothing', async () => {
    const before = await ctx.db.oauthApps.countDocuments();
    const cases: [unknown, string][] = [
      [{ ...publicClient, redirect_uris: ['http://evil.example/cb'] }, 'invalid_redirect_uri'],
      [{ ...publicClient, redirect_uris: ['https://a.example/cb#x'] }, 'invalid_redirect_uri'],
      [{ ...publicClient, redirect_uris: ['not a url'] }, 'invalid_redirect_uri'],
      [{ ...publicClient, redirect_uris: [] }, 'invalid_redirect_uri'],
      [{ ...publicClient, redirect_uris: [redirectUri, 'https://b.example/cb'] }, 'invalid_redirect_uri'],
      [{ ...publicClient, client_name: 'x'.repeat(101) }, 'invalid_client_metadata'],
      [{ ...publicClient, client_name: '  ' }, 'invalid_client_metadata'],
      // The database can neither store nor search text with a NUL character.
      [{ ...publicClient, client_name: 'Agent\u0000' }, 'invalid_client_metadata'],
      [{ redirect_uris: [redirectUri] }, 'invalid_client_metadata'],
      [{ ...publicClient, grant_types: ['client_credentials'] }, 'invalid_client_metadata'],
      [{ ...publicClient, response_types: ['token'] }, 'invalid_client_metadata'],
      [{ ...publicClient, token_endpoint_auth_method: 'private_key_jwt' }, 'invalid_client_metadata'],
      [['not', 'an', 'object'], 'invalid_client_metadata'],
    ];
    for (const [body, error] of cases) {
      const answer = await register(body);
      expect(answer, JSON.stringify(body)).toMatchObject({ status: 400, body: { error } });
      expect((answer.body as { error_description: string }).error_description.length).toBeGreaterThan(5);
    }
    const form = await api(stack.baseUrl, null, '/api/oauth/register', {
      method: 'POST', rawBody: 'client_name=x', headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(form).toMatchObject({ status: 400, body: { error: 'invalid_client_metadata' } });
    const broken = await api(stack.baseUrl, null, '/api/oauth/register', {
      method: 'POST', rawBody: '{"client_name":', headers: { 'Content-Type': 'application/json' },
    });
    expect(broken).toMatchObject({ status: 400, body: { error: 'invalid_client_metadata' } });
    expect(await ctx.db.oauthApps.countDocuments()).toBe(before);
  });

  it('runs the MCP SDK\'s discovery, registration, PKCE authorization and exchange, then calls /mcp', async () => {
    const user = new DashboardClient(stack.baseUrl);
    expect(await user.signUp(newAccount('mcp-oauth'))).toMatchObject({ status: 302 });

    const unauthenticated = await fetch(`${origin}/mcp`, { method: 'POST' });
    const metadataUrl = extractWWWAuthenticateParams(unauthenticated).resourceMetadataUrl;
    const resource = await discoverOAuthProtectedResourceMetadata(`${origin}/mcp`, {
      resourceMetadataUrl: metadataUrl,
    });
    const issuer = resource.authorization_servers?.[0] ?? '';
    expect(issuer).toBe(origin);
    expect(resource.resource).toBe(`${origin}/mcp`);
    const metadata = await discoverAuthorizationServerMetadata(issuer);
    expect(metadata?.registration_endpoint).toBe(`${origin}/api/oauth/register`);
    const clientInformation = await registerClient(issuer, {
      metadata,
      clientMetadata: { client_name: 'SDK agent', redirect_uris: [redirectUri], token_endpoint_auth_method: 'none' },
    });
    const { authorizationUrl, codeVerifier } = await startAuthorization(issuer, {
      metadata, clientInformation, redirectUrl: redirectUri, scope: 'read', state: 'agent-state',
      resource: new URL(resource.resource),
    });
    const { page, answer } = await decideOnConsent(user, authorizationUrl.pathname + authorizationUrl.search);
    // The consent screen names the client as it registered itself.
    expect(page.html).toContain('SDK agent');
    expect(answer.status).toBe(302);
    const callback = new URL(answer.location ?? '');
    expect(callback.searchParams.get('state')).toBe('agent-state');
    const tokens = await exchangeAuthorization(issuer, {
      metadata, clientInformation, authorizationCode: callback.searchParams.get('code') ?? '', codeVerifier,
      redirectUri, resource: new URL(resource.resource),
    });
    expect(tokens).toMatchObject({ access_token: expect.stringMatching(/^pos_/) as unknown, scope: 'read' });
    // RFC 8707: the token is bound to the MCP resource it was asked for.
    const grant = await ctx.db.oauthGrants.findOne({ tokenDigest: ctx.secrets.digest(tokens.access_token) }).lean();
    expect(grant?.resource).toBe(`${origin}/mcp`);

    const client = new Client({ name: 'sdk-agent', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${tokens.access_token}` } },
    }));
    try {
      const { tools } = await client.listTools();
      expect(tools.length).toBeGreaterThan(5);

      // Approved, the client is among the user's approved apps, where they can revoke it; revoking
      // ends the session the agent holds: its next call is refused, not served from a cache.
      expect((await user.get('/approved-apps')).html).toContain('SDK agent');
      const app = await ctx.db.oauthApps.findOne({ clientId: clientInformation.client_id }).lean();
      const revoked = await user.post(`/approved-apps/${String(app?._id)}/revoke`, {});
      expect(revoked).toMatchObject({ status: 302, location: '/approved-apps?revoked=1' });
      await expect(client.listTools()).rejects.toThrow(/401|unauthorized|invalid_token/i);
      const after = await fetch(`${origin}/mcp`, {
        method: 'POST', headers: { Authorization: `Bearer ${tokens.access_token}` },
      });
      expect(after.status).toBe(401);
      expect(after.headers.get('www-authenticate')).toMatch(/invalid_token/);
    } finally {
      await client.close();
    }
  });

  it('holds a public client to PKCE and to sending no secret', async () => {
    const user = new DashboardClient(stack.baseUrl);
    expect(await user.signUp(newAccount('mcp-pkce'))).toMatchObject({ status: 302 });
    const { client_id: clientId } = (await register(publicClient)).body as { client_id: string };
    const query = new URLSearchParams({ client_id: clientId, response_type: 'code', redirect_uri: redirectUri });
    const withoutPkce = await user.get(`/oauth/authorize?${query.toString()}`);
    expect(withoutPkce.status).toBe(302);
    const refused = new URL(withoutPkce.location ?? '');
    expect(refused.searchParams.get('error')).toBe('invalid_request');
    expect(refused.searchParams.get('error_description')).toMatch(/code_challenge is required/);

    const secretSent = await api(stack.baseUrl, null, '/api/oauth/token', {
      method: 'POST',
      body: {
        grant_type: 'authorization_code', code: 'x', client_id: clientId, client_secret: 'pcs_guess',
        redirect_uri: redirectUri,
      },
    });
    expect(secretSent).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
  });

  it('limits registrations per client address', async () => {
    let throttled: Awaited<ReturnType<typeof register>> | null = null;
    for (let attempt = 0; attempt < 21 && throttled === null; attempt += 1) {
      const answer = await register(publicClient);
      if (answer.status === 429) throttled = answer;
      else expect(answer.status).toBe(201);
    }
    expect(throttled).toMatchObject({ status: 429, body: { error: 'too_many_requests' } });
    expect(Number(throttled?.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
