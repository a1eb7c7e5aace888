import { extractWWWAuthenticateParams } from '@modelcontextprotocol/sdk/client/auth.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../../test/support/fixtures.ts';
import { startStack, type RunningStack } from '../../test/support/stack.ts';
import { createTestContext, type TestContext } from '../../test/support/test-context.ts';

/**
 * /mcp as an OAuth 2.1 resource server (RFC 9728): a client given only the server URL learns from
 * the 401 where the Protected Resource Metadata is, and from that where to get a token. The
 * deployment's configured addresses are named, not the address the test reaches it on.
 */
describe('MCP authorization discovery', () => {
  let ctx: TestContext;
  let stack: RunningStack;
  const metadataUrl = 'https://api.sps.example.com/.well-known/oauth-protected-resource';
  const expected = {
    resource: 'https://api.sps.example.com/mcp',
    authorization_servers: ['https://sps.example.com'],
    scopes_supported: ['public_api', 'read', 'posts', 'uploads', 'analytics', 'webhooks', 'integrations'],
    bearer_methods_supported: ['header'],
  };
  const initialize = {
    jsonrpc: '2.0', id: 1, method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'anonymous', version: '1' } },
  };

  beforeAll(async () => {
    ctx = await createTestContext({
      FRONTEND_URL: 'https://sps.example.com', BACKEND_URL: 'https://api.sps.example.com/api',
    });
    stack = await startStack(ctx, { workers: false });
  });
  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
  });

  async function postMcp(authorization: string | null): Promise<Response> {
    return fetch(`${stack.baseUrl}/mcp`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json', Accept: 'application/json, text/event-stream',
        ...(authorization === null ? {} : { Authorization: authorization }),
      },
      body: JSON.stringify(initialize),
    });
  }

  it('answers an unauthenticated call with 401 and a Bearer challenge naming the metadata', async () => {
    const response = await postMcp(null);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${metadataUrl}"`);
    expect(await response.json()).toMatchObject({ error: 'missing_credentials' });
    // The SDK's own client reads the link where it will look for it.
    expect(extractWWWAuthenticateParams(response).resourceMetadataUrl?.href).toBe(metadataUrl);
  });

  it('answers a bad token with invalid_token and the same link; GET and DELETE challenge too', async () => {
    const response = await postMcp('Bearer pos_not-a-token');
    expect(response.status).toBe(401);
    const params = extractWWWAuthenticateParams(response);
    expect(params).toMatchObject({ error: 'invalid_token' });
    expect(params.resourceMetadataUrl?.href).toBe(metadataUrl);
    for (const method of ['GET', 'DELETE']) {
      const answer = await fetch(`${stack.baseUrl}/mcp`, { method });
      expect(answer.status, method).toBe(401);
      expect(answer.headers.get('www-authenticate'), method).toContain(`resource_metadata="${metadataUrl}"`);
    }
  });

  it('serves the Protected Resource Metadata at the root and at the path-suffixed form', async () => {
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
      const answer = await api(stack.baseUrl, null, path);
      expect(answer, path).toMatchObject({ status: 200, body: expected });
      expect(answer.headers.get('access-control-allow-origin'), path).toBe('*');
    }
    expect((await fetch(`${stack.baseUrl}/.well-known/oauth-protected-resource/other`)).status).toBe(404);
  });
});
