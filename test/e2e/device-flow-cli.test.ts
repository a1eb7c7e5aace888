import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp } from '../../shared/domain/accounts/accounts.ts';
import { launchChromium } from '../browser/chromium.ts';
import {
  authServerEnvironment, registerAuthServerApp, startAuthServer, useAuthServerCallback, type RunningAuthServer,
} from '../support/auth-server-harness.ts';
import { createTestDatabase } from '../support/postgres.ts';
import { startService, type ServiceProcess } from '../support/processes.ts';
import { startStack, type RunningStack } from '../support/stack.ts';
import { createTestContext, type TestContext } from '../support/test-context.ts';

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * A proxy in front of the auth server that loses the first answer carrying a token: the auth
 * server hands it over, the connection to the CLI breaks before the CLI reads it.
 */
interface LossyProxy { origin: string; dropped: string[]; close(): Promise<void> }

async function startLossyProxy(upstream: string): Promise<LossyProxy> {
  const dropped: string[] = [];
  const server: Server = createServer((request, response) => {
    void (async () => {
      const body = await readBody(request);
      const answer = await fetch(`${upstream}${request.url ?? '/'}`, {
        method: request.method, headers: { 'Content-Type': request.headers['content-type'] ?? 'application/json' },
        body: request.method === 'POST' ? body : undefined,
      });
      const text = await answer.text();
      if (request.url === '/device/token' && answer.status === 200 && dropped.length === 0) {
        dropped.push((JSON.parse(text) as { access_token: string }).access_token);
        request.socket.destroy();
        return;
      }
      const type = answer.headers.get('content-type') ?? 'application/json';
      response.writeHead(answer.status, { 'Content-Type': type }).end(text);
    })().catch((error: unknown) => { response.writeHead(500).end(String(error)); });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    dropped,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => { resolve(); }); }),
  };
}

/**
 * The spec's device flow as a user lives it: `sps auth:login --no-browser` prints a code and a
 * URL; in a real (headless) browser the user enters the code on the auth server, logs in to the
 * dashboard and approves on the consent page; the CLI saves its credentials and can call the API.
 */
// Each login waits at least one poll interval, and chromium is slow on a busy machine: wide margins.
describe('sps auth:login through the device-flow auth server, in a real browser', { timeout: 90_000 }, () => {
  let ctx: TestContext;
  let stack: RunningStack;
  let database: { url: string; drop(): Promise<void> };
  let authA: RunningAuthServer;
  let authB: RunningAuthServer;
  let browser: Browser;
  let home: string;
  const email = 'device-user@example.com';
  const password = 'correct horse battery';

  beforeAll(async () => {
    ctx = await createTestContext();
    stack = await startStack(ctx, { workers: false });
    database = await createTestDatabase();
    const registered = await registerAuthServerApp(ctx);
    const { app } = registered;
    // The shortest interval the server allows: each login waits it at least once.
    const env = authServerEnvironment(registered, stack.baseUrl, database.url, { DEVICE_POLL_INTERVAL_SECONDS: '2' });
    // Both instances sit behind one public address, as behind a load balancer: A's, known once A listens.
    authA = await startAuthServer(env);
    authB = await startAuthServer({ ...env, SERVER_URL: authA.publicUrl });
    await useAuthServerCallback(ctx, app, authA.publicUrl);
    await signUp(ctx.db, ctx.secrets, { email, password, organizationName: 'Device Org' });
    browser = await launchChromium();
    home = mkdtempSync(path.join(tmpdir(), 'sps-cli-home-'));
  });
  afterAll(async () => {
    await browser.close();
    await Promise.all([authA.process.stop(), authB.process.stop()]);
    await stack.close();
    await ctx.cleanup();
    await database.drop();
    rmSync(home, { recursive: true, force: true });
  });

  const cliEnv = (authServer: RunningAuthServer) => ({ PATH: process.env.PATH, HOME: home, SERVICE_AUTH_SERVER: authServer.url, SERVICE_API_URL: `${stack.baseUrl}/api` });
  const sps = (args: string[], env: NodeJS.ProcessEnv): ServiceProcess => startService('cli/sps.mjs', env, args);

  async function loginUrl(cli: ServiceProcess): Promise<{ url: URL; code: string }> {
    const [, address = ''] = await cli.waitForOutput(/Open this page to log in and confirm the code: (\S+)/);
    const url = new URL(address);
    return { url, code: url.searchParams.get('code') ?? '' };
  }

  /** The user's part, in the browser: confirm the code on `verifyOrigin`, log in, then authorize or deny. */
  async function actInBrowser(verifyOrigin: string, code: string, decision: 'Authorize' | 'Deny'): Promise<string> {
    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      await page.goto(`${verifyOrigin}/device/verify?code=${encodeURIComponent(code)}`);
      // The page shows the code to compare with the terminal's; going on means saying they match.
      await page.getByText(code, { exact: true }).waitFor();
      await page.getByLabel('my terminal shows this exact code').check();
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.waitForURL(/\/login/);
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill(password);
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.waitForURL(/\/oauth\/authorize/);
      await page.getByRole('button', { name: decision }).click();
      await page.waitForURL(/\/device\/callback/);
      return await page.locator('main').innerText();
    } finally {
      await context.close();
    }
  }

  it('logs in with the code entered on another instance, saves the credentials, and lists integrations with them', async () => {
    const cli = sps(['auth:login', '--no-browser'], cliEnv(authA));
    const { url, code } = await loginUrl(cli);
    expect(url.origin).toBe(authA.publicUrl);
    expect(code).toMatch(/^[A-Z]{4}-[A-Z]{4}$/);
    expect(cli.output()).toContain(`Your one-time code: ${code}`);

    const shown = await actInBrowser(authB.url, code, 'Authorize');
    expect(shown).toMatch(/You are logged in/);
    expect(await cli.exited()).toBe(0);

    const file = path.join(home, '.service', 'credentials.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    const saved = JSON.parse(readFileSync(file, 'utf8')) as { accessToken: string; apiUrl: string; organizationId: string };
    expect(saved).toMatchObject({ accessToken: expect.stringMatching(/^pos_/) as string, apiUrl: `${stack.baseUrl}/api` });

    const list = sps(['integrations:list'], { PATH: process.env.PATH, HOME: home });
    expect(await list.exited()).toBe(0);
    expect(JSON.parse(list.stdout())).toEqual([]);
    const status = sps(['auth:status'], { PATH: process.env.PATH, HOME: home });
    expect(await status.exited()).toBe(0);
    expect(JSON.parse(status.stdout())).toMatchObject({ credential: 'oauth', valid: true, organizationId: saved.organizationId });
  });

  it('logs in when the answer carrying the token is lost: the CLI polls again and gets the same token', async () => {
    const proxy = await startLossyProxy(authA.url);
    try {
      const cli = sps(['auth:login', '--no-browser'], { ...cliEnv(authA), SERVICE_AUTH_SERVER: proxy.origin });
      const { code } = await loginUrl(cli);
      expect(await actInBrowser(authB.url, code, 'Authorize')).toMatch(/You are logged in/);
      expect(await cli.exited()).toBe(0);
      expect(cli.output()).toMatch(/Polling failed \(could not reach the auth server at .*\); trying again/);
      expect(proxy.dropped).toHaveLength(1);
      const file = path.join(home, '.service', 'credentials.json');
      const saved = JSON.parse(readFileSync(file, 'utf8')) as { accessToken: string };
      expect(saved.accessToken).toBe(proxy.dropped[0]);
    } finally {
      await proxy.close();
    }
  });

  it('exits 1 with access_denied when the user denies', async () => {
    const cli = sps(['auth:login', '--no-browser'], cliEnv(authB));
    const { code } = await loginUrl(cli);
    expect(await actInBrowser(authA.url, code, 'Deny')).toMatch(/denied/i);
    expect(await cli.exited()).toBe(1);
    expect(cli.output()).toMatch(/access_denied/);
  });

  it('exits 1 with expired_token when the request expires', async () => {
    const cli = sps(['auth:login', '--no-browser'], cliEnv(authA));
    const { code } = await loginUrl(cli);
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      await client.query('UPDATE device_requests SET expires_at = now() - interval \'1 second\' WHERE user_code = $1', [code.replace('-', '')]);
    } finally {
      await client.end();
    }
    expect(await cli.exited()).toBe(1);
    expect(cli.output()).toMatch(/expired_token/);
  });
});
