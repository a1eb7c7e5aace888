import {
  discoverAuthorizationServerMetadata, discoverOAuthProtectedResourceMetadata, exchangeAuthorization,
  extractWWWAuthenticateParams, registerClient, startAuthorization,
} from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallbackServer } from './callback-server.ts';
import { launchChromium } from './chromium.ts';
import { newAccount } from './dashboard-client.ts';
import { freePort } from '../support/free-port.ts';
import { startStack, type RunningStack } from '../support/stack.ts';
import { createTestContext, type TestContext } from '../support/test-context.ts';

/**
 * An MCP client that knows nothing but the server's URL, authorized by a person in Chromium:
 * the SDK's own OAuth functions discover, register and exchange; the person signs up, reads the
 * consent screen (the client's registered name, the scopes asked) and approves; the agent's
 * session works until the person revokes the app on the approved-apps page.
 */
describe('an MCP agent authorized by a person in the dashboard', () => {
  let ctx: TestContext;
  let stack: RunningStack;
  let browser: Browser;
  let person: Page;
  let origin: string;
  const callback = new CallbackServer();

  beforeAll(async () => {
    await callback.start();
    // The issuer and the resource are the api's own address, so the SDK's discovery reaches them.
    const port = await freePort();
    origin = `http://127.0.0.1:${String(port)}`;
    ctx = await createTestContext({ FRONTEND_URL: origin, BACKEND_URL: `${origin}/api` });
    stack = await startStack(ctx, { workers: false, port });
    browser = await launchChromium();
    person = await (await browser.newContext({ baseURL: origin })).newPage();
  });
  afterAll(async () => {
    await browser.close();
    await stack.close();
    await ctx.cleanup();
    await callback.stop();
  });

  it('goes from a 401 to tool calls through registration and consent, and ends when the app is revoked', async () => {
    const mcpUrl = `${origin}/mcp`;
    const challenge = await fetch(mcpUrl, { method: 'POST' });
    expect(challenge.status).toBe(401);
    const resource = await discoverOAuthProtectedResourceMetadata(mcpUrl, {
      resourceMetadataUrl: extractWWWAuthenticateParams(challenge).resourceMetadataUrl,
    });
    const issuer = resource.authorization_servers?.[0] ?? '';
    const metadata = await discoverAuthorizationServerMetadata(issuer);
    const clientInformation = await registerClient(issuer, {
      metadata,
      clientMetadata: {
        client_name: 'Desk Agent', redirect_uris: [callback.redirectUrl], token_endpoint_auth_method: 'none',
      },
    });
    const { authorizationUrl, codeVerifier } = await startAuthorization(issuer, {
      metadata, clientInformation, redirectUrl: callback.redirectUrl, scope: 'read posts', state: 'desk-state',
      resource: new URL(resource.resource),
    });

    // The person arrives signed out, signs up, and is brought back to the consent screen.
    await person.goto(authorizationUrl.toString());
    await person.waitForURL('**/login?return_to=**');
    await person.getByRole('link', { name: 'Sign up' }).click();
    const account = newAccount('mcp-person');
    await person.getByLabel('Email').fill(account.email);
    await person.getByLabel('Password').fill(account.password);
    await person.getByLabel('Organization name').fill(account.organization);
    await person.getByRole('button', { name: 'Sign up' }).click();
    await person.getByRole('heading', { name: 'Desk Agent', exact: true }).waitFor();
    // The scopes asked are listed, each by its name, and none more.
    const scopes = await person.locator('#consent-scopes code').allInnerTexts();
    expect(scopes.sort()).toEqual(['posts', 'read']);
    await person.getByRole('button', { name: 'Authorize' }).click();
    await person.waitForURL(`${callback.redirectUrl}?**`);
    expect(callback.last.get('state')).toBe('desk-state');

    const tokens = await exchangeAuthorization(issuer, {
      metadata, clientInformation, authorizationCode: callback.last.get('code') ?? '', codeVerifier,
      redirectUri: callback.redirectUrl, resource: new URL(resource.resource),
    });
    const client = new Client({ name: 'desk-agent', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), {
      requestInit: { headers: { Authorization: `Bearer ${tokens.access_token}` } },
    }));
    try {
      const channels = await client.callTool({ name: 'list_channels', arguments: {} });
      expect(channels.isError).not.toBe(true);
      expect(channels.structuredContent).toEqual({ channels: [] });

      await person.goto('/approved-apps');
      await person.getByRole('button', { name: 'Revoke Desk Agent' }).click();
      await person.getByText('access was revoked').waitFor();
      await expect(client.callTool({ name: 'list_channels', arguments: {} })).rejects.toThrow(/401|unauthorized/i);
    } finally {
      await client.close();
    }
  });
});
