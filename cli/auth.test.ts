import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp } from '../shared/domain/accounts/accounts.ts';
import { approve, exchangeCode } from '../shared/domain/oauth/authorization.ts';
import { registerApp } from '../shared/domain/oauth/oauth-apps.ts';
import { createOrganization } from '../shared/domain/organizations/organizations.ts';
import { freePort } from '../test/support/free-port.ts';
import { startStack, type RunningStack } from '../test/support/stack.ts';
import { createTestContext, type TestContext } from '../test/support/test-context.ts';
import { removeTemporaryFolders, runCli, stdoutJson, temporaryHome } from './test/run-cli.ts';

const loginHint = 'not logged in: run `sps auth:login` to log in through the browser, or set SERVICE_API_KEY';

/** Every command that calls the API, with arguments that would be accepted. */
const apiCommands: string[][] = [
  ['integrations:list'], ['integrations:settings', 'c1'], ['integrations:trigger', 'c1', 'instanceLimits'],
  ['posts:create', '--channel', 'c1', '--content', 'hi'], ['posts:list', '--start', '2030-01-01', '--end', '2030-01-02'],
  ['posts:get', 'p1'], ['posts:delete', 'p1'], ['posts:delete', '--group', 'g1'], ['posts:status', 'p1', 'draft'],
  ['posts:missing', 'p1'], ['posts:connect', 'p1', 'r1'], ['posts:retry', 'p1'], ['upload', 'cli/sps.mjs'],
  ['upload:url', 'https://example.com/a.png'],
  ['media:get', 'm1'], ['notifications:list'], ['analytics:platform', 'c1'], ['analytics:post', 'p1'],
  ['video:generate', '--type', 'slideshow', '--output', 'vertical'], ['auth:status'],
];

describe('sps credentials: API key, stored OAuth credentials, status and logout', () => {
  let ctx: TestContext;
  let stack: RunningStack;
  let apiUrl: string;
  let apiKey: string;
  let oauth: { accessToken: string; organizationId: string };

  beforeAll(async () => {
    ctx = await createTestContext();
    stack = await startStack(ctx, { workers: false });
    apiUrl = `${stack.baseUrl}/api`;
    ({ apiKey } = await createOrganization(ctx.db, ctx.secrets, { name: 'Key holder' }));
    const { user, organizationId } = await signUp(ctx.db, ctx.secrets, { email: 'cli-user@example.com', password: 'a long enough password', organizationName: 'Device org' });
    const { app, clientSecret } = await registerApp(ctx.db, ctx.secrets, organizationId, { name: 'SPS CLI', redirectUrl: 'https://auth.example.com/device/callback' });
    const now = new Date();
    const code = await approve(ctx.db, ctx.secrets, { app, user, organizationId, now });
    const request = { grant_type: 'authorization_code', code, client_id: app.clientId, client_secret: clientSecret };
    const token = await exchangeCode(ctx.db, ctx.secrets, stack.caches, request, now);
    oauth = { accessToken: token.access_token, organizationId };
  });
  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
    removeTemporaryFolders();
  });

  function homeWithCredentials(credentials: unknown): string {
    const home = temporaryHome();
    mkdirSync(path.join(home, '.service'), { mode: 0o700 });
    writeFileSync(path.join(home, '.service', 'credentials.json'), typeof credentials === 'string' ? credentials : JSON.stringify(credentials), { mode: 0o600 });
    return home;
  }

  it('auth:status with SERVICE_API_KEY: the key is used and valid', async () => {
    const run = await runCli(['auth:status'], { home: temporaryHome(), env: { SERVICE_API_KEY: apiKey, SERVICE_API_URL: apiUrl } });
    expect(stdoutJson(run)).toEqual({ credential: 'api-key', apiUrl, valid: true });
    expect(run.stderr).toContain('Using the API key in SERVICE_API_KEY');
  });

  it('auth:status with a wrong key: valid false, exit 1 and the server\'s message', async () => {
    const run = await runCli(['auth:status'], { home: temporaryHome(), env: { SERVICE_API_KEY: 'sps_not_a_real_key', SERVICE_API_URL: apiUrl } });
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toEqual({ credential: 'api-key', apiUrl, valid: false });
    expect(run.stderr).toContain('The server does not accept this credential.');
    expect(run.stderr).toMatch(/\(invalid_credentials, HTTP 401\)/);
  });

  it('auth:status when the API cannot be reached: valid false, exit 1 and the reason', async () => {
    const unreachable = `http://127.0.0.1:${await freePort()}/api`;
    const run = await runCli(['auth:status'], { home: temporaryHome(), env: { SERVICE_API_KEY: apiKey, SERVICE_API_URL: unreachable } });
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toEqual({ credential: 'api-key', apiUrl: unreachable, valid: false });
    expect(run.stderr).toContain('Could not confirm the credential:');
    expect(run.stderr).toMatch(/could not reach http:\/\/127\.0\.0\.1:\d+: .*ECONNREFUSED/);
  });

  it('stored OAuth credentials win over a wrong SERVICE_API_KEY, for auth:status and for API commands', async () => {
    const home = homeWithCredentials({ accessToken: oauth.accessToken, apiUrl, organizationId: oauth.organizationId });
    const env = { SERVICE_API_KEY: 'sps_wrong_key' };
    const status = await runCli(['auth:status'], { home, env });
    expect(stdoutJson(status)).toEqual({ credential: 'oauth', apiUrl, organizationId: oauth.organizationId, valid: true });
    expect(status.stderr).toContain(`Using OAuth credentials from ${path.join(home, '.service', 'credentials.json')}`);
    expect(stdoutJson(await runCli(['integrations:list'], { home, env }))).toEqual([]);
  });

  it('stored credentials win even when only the API key would work (no silent fallback)', async () => {
    const home = homeWithCredentials({ accessToken: 'pos_revoked_or_unknown', apiUrl, organizationId: 'gone' });
    const run = await runCli(['integrations:list'], { home, env: { SERVICE_API_KEY: apiKey } });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/invalid_credentials, HTTP 401/);
  });

  it('SERVICE_API_URL overrides the address stored at login', async () => {
    const home = homeWithCredentials({ accessToken: oauth.accessToken, apiUrl: 'http://127.0.0.1:1/api', organizationId: oauth.organizationId });
    const run = await runCli(['auth:status'], { home, env: { SERVICE_API_URL: `${apiUrl}/` } });
    expect(stdoutJson(run)).toMatchObject({ credential: 'oauth', apiUrl, valid: true });
  });

  it('auth:logout removes the stored credentials, is fine when there are none, and the API key takes over', async () => {
    const home = homeWithCredentials({ accessToken: oauth.accessToken, apiUrl, organizationId: oauth.organizationId });
    const env = { SERVICE_API_KEY: apiKey, SERVICE_API_URL: apiUrl };
    const first = await runCli(['auth:logout'], { home, env });
    expect(first.code).toBe(0);
    expect(first.stderr).toMatch(/Logged out: removed .*credentials\.json/);
    expect(first.stderr).toContain('SERVICE_API_KEY is still set');
    expect(existsSync(path.join(home, '.service', 'credentials.json'))).toBe(false);
    const second = await runCli(['auth:logout'], { home });
    expect(second.code).toBe(0);
    expect(second.stderr).toMatch(/No stored credentials/);
    expect(stdoutJson(await runCli(['auth:status'], { home, env }))).toEqual({ credential: 'api-key', apiUrl, valid: true });
  });

  it.each(apiCommands.map((args) => [args.join(' '), args]))('%s without any credential: exit 1 saying how to log in', async (_name, args) => {
    const run = await runCli(args, { home: temporaryHome(), env: { SERVICE_API_URL: apiUrl } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(loginHint);
    expect(run.stdout).toBe('');
  });

  it('a damaged credentials file is reported, not ignored', async () => {
    const run = await runCli(['integrations:list'], { home: homeWithCredentials('{"accessToken": '), env: { SERVICE_API_KEY: apiKey, SERVICE_API_URL: apiUrl } });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/credentials\.json is not valid JSON; run `sps auth:logout` and `sps auth:login` again/);
  });

  it('an API that cannot be reached gives exit 1 and a readable message', async () => {
    const port = await freePort();
    const run = await runCli(['integrations:list'], { home: temporaryHome(), env: { SERVICE_API_KEY: apiKey, SERVICE_API_URL: `http://127.0.0.1:${port}/api` } });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(new RegExp(`could not reach http://127\\.0\\.0\\.1:${port}: .*ECONNREFUSED`));
  });
});
