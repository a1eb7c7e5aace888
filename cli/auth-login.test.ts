import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../test/support/free-port.ts';
import { waitFor } from '../test/support/stack.ts';
import { pending, startFakeDeviceServer, type FakeDeviceServer, type FakeDeviceServerOptions } from './test/fake-device-server.ts';
import { removeTemporaryFolders, runCli, temporaryFolder, temporaryHome } from './test/run-cli.ts';

const approved = { status: 200, body: { access_token: 'pos_device_token', api_url: 'http://127.0.0.1:5999/api', organization_id: 'org-from-device' } };

describe('sps auth:login (device flow against a fake auth server)', () => {
  let server: FakeDeviceServer | null = null;
  afterEach(async () => {
    await server?.close();
    server = null;
  });
  afterAll(removeTemporaryFolders);

  async function login(options: FakeDeviceServerOptions, extra: { home?: string; args?: string[]; env?: Record<string, string> } = {}) {
    server = await startFakeDeviceServer(options);
    const home = extra.home ?? temporaryHome();
    const run = await runCli(['auth:login', ...(extra.args ?? ['--no-browser'])], { home, env: { SERVICE_AUTH_SERVER: server.origin, ...extra.env } });
    return { run, home, server, file: path.join(home, '.service', 'credentials.json') };
  }

  it('prints the code and the page with the code filled in, polls until approved, and saves the credentials 0600 in a 0700 folder', async () => {
    const { run, file, server: device } = await login({ tokenAnswers: [pending, pending, approved] });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(`Your one-time code: ${device.userCode}`);
    expect(run.stderr).toContain(`${device.origin}/device/verify?code=${device.userCode}`);
    expect(run.stderr).toMatch(/Logged in to organization org-from-device/);
    expect(device.polls).toEqual([device.deviceCode, device.deviceCode, device.deviceCode]);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ accessToken: 'pos_device_token', apiUrl: 'http://127.0.0.1:5999/api', organizationId: 'org-from-device' });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
  });

  it('replaces earlier credentials and tightens a folder and file that were too open', async () => {
    const home = temporaryHome();
    const folder = path.join(home, '.service');
    mkdirSync(folder, { mode: 0o755 });
    chmodSync(folder, 0o755);
    writeFileSync(path.join(folder, 'credentials.json'), '{"accessToken":"old","apiUrl":"x","organizationId":"y"}', { mode: 0o644 });
    const { run, file } = await login({ tokenAnswers: [approved] }, { home });
    expect(run.code).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ accessToken: 'pos_device_token' });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(folder).mode & 0o777).toBe(0o700);
  });

  it.each([
    ['expired_token', /the code expired before the login was approved/],
    ['access_denied', /the login was denied in the browser/],
  ])('stops with exit 1 when the auth server answers %s, and saves nothing', async (error, message) => {
    const { run, file } = await login({ tokenAnswers: [pending, { status: 400, body: { error } }] });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(message);
    expect(existsSync(file)).toBe(false);
  });

  it('stops on any other error with what the auth server said', async () => {
    const { run } = await login({ tokenAnswers: [{ status: 400, body: { error: 'server_error', error_description: 'the database is down' } }] });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('the auth server refused the login (server_error): the database is down');
  });

  it('answers slow_down by polling 5 seconds slower from then on (RFC 8628 3.5), and logs in', async () => {
    const started = Date.now();
    const slowDown = { status: 400, body: { error: 'slow_down' } };
    const { run, server: device } = await login({ tokenAnswers: [pending, slowDown, approved], interval: 0.05 });
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/Logged in to organization org-from-device/);
    expect(device.polls).toHaveLength(3);
    // Three polls 50 ms apart, except the one after slow_down: 5.05 seconds.
    expect(Date.now() - started).toBeGreaterThanOrEqual(5_000);
  });

  it('polls again when an answer is lost or the server fails a moment (the token is redelivered)', async () => {
    const unavailable = { status: 503, body: { error: 'server_error' } };
    const { run, file, server: device } = await login({ tokenAnswers: [pending, unavailable, approved] });
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/Polling failed \(the auth server answered HTTP 503\); trying again/);
    expect(device.polls).toHaveLength(3);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ accessToken: 'pos_device_token' });
  });

  it('gives up after four failed polls in a row, and saves nothing', async () => {
    const badGateway = { status: 502, body: { error: 'bad_gateway' } };
    const { run, file, server: device } = await login({ tokenAnswers: [badGateway] });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/the auth server answered HTTP 502; gave up waiting for the login/);
    expect(device.polls).toHaveLength(4);
    expect(existsSync(file)).toBe(false);
  });

  it('says why the auth server would not start a login', async () => {
    const refusing = createServer((_request, response) => {
      const body = { error: 'rate_limited', error_description: 'too many logins started from your address' };
      response.writeHead(429, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
    });
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
    try {
      const origin = `http://127.0.0.1:${(refusing.address() as AddressInfo).port}`;
      const env = { SERVICE_AUTH_SERVER: origin };
      const run = await runCli(['auth:login', '--no-browser'], { home: temporaryHome(), env });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`the auth server did not start a login (HTTP 429 from ${origin}/device/code)`);
      expect(run.stderr).toContain(': too many logins started from your address');
    } finally {
      await new Promise<void>((resolve) => refusing.close(() => { resolve(); }));
    }
  });

  it.each([
    'file:///etc/passwd', 'javascript:alert(1)', 'ms-settings:privacy',
  ])('refuses the address %s: no browser, no poll, exit 1', async (address) => {
    const bin = temporaryFolder('sps-fake-opener-');
    const opened = path.join(bin, 'opened.txt');
    writeFileSync(path.join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s' "$1" > "${opened}"\n`, { mode: 0o755 });
    const withOpener = { args: [], env: { PATH: `${bin}:${process.env.PATH ?? ''}` } };
    const options = { tokenAnswers: [approved], verificationUri: address };
    const { run, server: device, file } = await login(options, withOpener);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`a verification address that is not http(s), refused: ${JSON.stringify(address)}`);
    expect(device.polls).toEqual([]);
    expect(existsSync(opened)).toBe(false);
    expect(existsSync(file)).toBe(false);
  });

  it('stops polling once expires_in has passed', async () => {
    const started = Date.now();
    const { run, server: device } = await login({ tokenAnswers: [pending], expiresIn: 0.5, interval: 0.1 });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/the code expired/);
    expect(device.polls.length).toBeGreaterThan(0);
    expect(device.polls.length).toBeLessThanOrEqual(6);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('fails with a readable message when the auth server cannot be reached', async () => {
    const port = await freePort();
    const run = await runCli(['auth:login', '--no-browser'], { home: temporaryHome(), env: { SERVICE_AUTH_SERVER: `http://127.0.0.1:${port}` } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`could not reach the auth server at http://127.0.0.1:${port}`);
  });

  it.runIf(process.platform === 'linux')('opens the browser with xdg-open on the page with the code', async () => {
    const bin = temporaryFolder('sps-fake-opener-');
    const opened = path.join(bin, 'opened.txt');
    writeFileSync(path.join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s' "$1" > "${opened}"\n`, { mode: 0o755 });
    const { run, server: device } = await login({ tokenAnswers: [pending, approved] }, { args: [], env: { PATH: `${bin}:${process.env.PATH ?? ''}` } });
    expect(run.code).toBe(0);
    const url = await waitFor(() => (existsSync(opened) ? readFileSync(opened, 'utf8') : undefined), { what: 'the fake xdg-open to run', timeoutMs: 5_000 });
    expect(url).toBe(`${device.origin}/device/verify?code=${device.userCode}`);
  });

  it.runIf(process.platform === 'linux')('says so when no browser can be opened, and logs in all the same', async () => {
    const emptyPath = temporaryFolder('sps-empty-path-');
    const { run } = await login({ tokenAnswers: [approved] }, { args: [], env: { PATH: emptyPath } });
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/Could not open a browser \(xdg-open: .*ENOENT.*\); open the page above yourself/);
    expect(run.stderr).toMatch(/Logged in to organization/);
  });
});
