import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../../test/support/fixtures.ts';
import { startStack, type RunningStack } from '../../test/support/stack.ts';
import { createTestContext, type TestContext } from '../../test/support/test-context.ts';

/**
 * RFC 8414 metadata, for a deployment whose frontend sits under a path: the document names the
 * configured addresses (not the one the request came in on), at the root and at the path form.
 */
describe('GET /.well-known/oauth-authorization-server', () => {
  let ctx: TestContext;
  let stack: RunningStack;
  const frontendUrl = 'https://sps.example.com/app';

  beforeAll(async () => {
    ctx = await createTestContext({ FRONTEND_URL: `${frontendUrl}/`, BACKEND_URL: 'https://api.sps.example.com/api' });
    stack = await startStack(ctx, { workers: false });
  });
  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
  });

  const expected = {
    issuer: frontendUrl,
    authorization_endpoint: `${frontendUrl}/oauth/authorize`,
    token_endpoint: 'https://api.sps.example.com/api/oauth/token',
    registration_endpoint: 'https://api.sps.example.com/api/oauth/register',
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    code_challenge_methods_supported: ['S256'],
    scopes_supported: ['public_api', 'read', 'posts', 'uploads', 'analytics', 'webhooks', 'integrations'],
  };

  it('describes the endpoints, client authentication, PKCE and scope, public and cacheable', async () => {
    const answer = await api(stack.baseUrl, null, '/.well-known/oauth-authorization-server');
    expect(answer).toMatchObject({ status: 200, body: expected });
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(answer.headers.get('access-control-allow-origin')).toBe('*');
    expect(answer.headers.get('cache-control')).toMatch(/^public/);
  });

  it('is also served where RFC 8414 §3.1 looks for an issuer with a path', async () => {
    const answer = await api(stack.baseUrl, null, '/.well-known/oauth-authorization-server/app');
    expect(answer).toMatchObject({ status: 200, body: expected });
    // Another path names another issuer: the dashboard's not-found page answers it.
    expect((await fetch(`${stack.baseUrl}/.well-known/oauth-authorization-server/other`)).status).toBe(404);
  });
});
