import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decideOnConsent } from '../../test/browser/consent-form.ts';
import { DashboardClient, newAccount } from '../../test/browser/dashboard-client.ts';
import { api } from '../../test/support/fixtures.ts';
import { freePort } from '../../test/support/free-port.ts';
import { startStack, type RunningStack } from '../../test/support/stack.ts';
import { createTestContext, type TestContext } from '../../test/support/test-context.ts';

const redirectUri = 'http://127.0.0.1:9/callback';

/**
 * RFC 8707 resource indicators: the authorization and token requests name where the token will be
 * used, the token is bound to it, and /mcp refuses a token bound to another resource.
 */
describe('resource indicators (RFC 8707)', () => {
  let ctx: TestContext;
  let stack: RunningStack;
  let origin: string;
  let user: DashboardClient;
  let clientId: string;

  beforeAll(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${String(port)}`;
    ctx = await createTestContext({ FRONTEND_URL: origin, BACKEND_URL: `${origin}/api` });
    stack = await startStack(ctx, { workers: false, port });
    user = new DashboardClient(stack.baseUrl);
    expect(await user.signUp(newAccount('resource'))).toMatchObject({ status: 302 });
    const registered = await api(stack.baseUrl, null, '/api/oauth/register', {
      method: 'POST',
      body: { client_name: 'Audience agent', redirect_uris: [redirectUri], token_endpoint_auth_method: 'none' },
    });
    clientId = (registered.body as { client_id: string }).client_id;
  });
  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
  });

  /** The user approves a PKCE request naming `resource` (or none); the redirect's parameters. */
  async function approved(resource: string | null): Promise<{ callback: URL; verifier: string }> {
    const verifier = randomBytes(32).toString('base64url');
    const query = new URLSearchParams({
      client_id: clientId, response_type: 'code', redirect_uri: redirectUri, state: 's',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256',
    });
    if (resource !== null) query.set('resource', resource);
    const { answer } = await decideOnConsent(user, `/oauth/authorize?${query.toString()}`);
    expect(answer.status).toBe(302);
    return { callback: new URL(answer.location ?? ''), verifier };
  }

  const exchange = (code: string, verifier: string, resource?: string) =>
    api(stack.baseUrl, null, '/api/oauth/token', {
      method: 'POST',
      body: {
        grant_type: 'authorization_code', code, client_id: clientId, redirect_uri: redirectUri,
        code_verifier: verifier, ...(resource === undefined ? {} : { resource }),
      },
    });

  async function tokenFor(resource: string | null): Promise<string> {
    const { callback, verifier } = await approved(resource);
    const answer = await exchange(callback.searchParams.get('code') ?? '', verifier, resource ?? undefined);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return (answer.body as { access_token: string }).access_token;
  }

  const listTools = (token: string) => fetch(`${origin}/mcp`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${token}`, 'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });

  it('accepts at /mcp a token bound to /mcp, and one that named no resource', async () => {
    for (const resource of [`${origin}/mcp`, null]) {
      const response = await listTools(await tokenFor(resource));
      expect(response.status, String(resource)).toBe(200);
    }
  });

  it('refuses at /mcp a token issued for another resource: 401 invalid_token', async () => {
    const token = await tokenFor('https://other.example/api');
    const response = await listTools(token);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
    expect(await response.json()).toMatchObject({ error: 'invalid_credentials', message: /another resource/ });
  });

  it('refuses a token request naming another resource than the approval, keeping the code usable', async () => {
    const { callback, verifier } = await approved(`${origin}/mcp`);
    const code = callback.searchParams.get('code') ?? '';
    const widened = await exchange(code, verifier, 'https://other.example/api');
    expect(widened).toMatchObject({ status: 400, body: { error: 'invalid_target' } });
    expect(await exchange(code, verifier)).toMatchObject({ status: 200 });
  });

  it('answers a malformed resource at authorize with invalid_target at the redirect URI', async () => {
    for (const resource of ['not-a-uri', 'https://api.example/mcp#part']) {
      const query = new URLSearchParams({
        client_id: clientId, response_type: 'code', redirect_uri: redirectUri, resource,
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256',
      });
      const answer = await user.get(`/oauth/authorize?${query.toString()}`);
      expect(answer.status, resource).toBe(302);
      expect(new URL(answer.location ?? '').searchParams.get('error'), resource).toBe('invalid_target');
    }
  });
});
