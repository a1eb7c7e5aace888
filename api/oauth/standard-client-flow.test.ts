import { Types } from 'mongoose';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerApp } from '../../shared/domain/oauth/oauth-apps.ts';
import { decideOnConsent } from '../../test/browser/consent-form.ts';
import { DashboardClient, newAccount } from '../../test/browser/dashboard-client.ts';
import { freePort } from '../../test/support/free-port.ts';
import { startStack, type RunningStack } from '../../test/support/stack.ts';
import { createTestContext, type TestContext } from '../../test/support/test-context.ts';

const redirectUrl = 'http://127.0.0.1:9/callback';

/** One request the library sent, as it went on the wire. */
interface SentRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string;
}

/**
 * The whole authorization-code flow driven by openid-client, a widely used OAuth client library,
 * configured only by RFC 8414 discovery: nothing in its set-up is specific to SPS. The user's
 * side is a signed-in dashboard user approving the consent form.
 */
describe('a standard OAuth client library, unchanged', () => {
  let ctx: TestContext;
  let stack: RunningStack;
  let issuer: string;
  let clientId: string;
  let clientSecret: string;
  let user: DashboardClient;
  const sent: SentRequest[] = [];

  beforeAll(async () => {
    // The issuer must be where the library looks for the metadata: the api's own address.
    const port = await freePort();
    issuer = `http://127.0.0.1:${String(port)}`;
    ctx = await createTestContext({ FRONTEND_URL: issuer, BACKEND_URL: `${issuer}/api` });
    stack = await startStack(ctx, { workers: false, port });
    ({ app: { clientId }, clientSecret } = await registerApp(ctx.db, ctx.secrets, new Types.ObjectId().toString(), {
      name: 'Library app',
      redirectUrl,
    }));
    user = new DashboardClient(stack.baseUrl);
    const account = newAccount('library');
    expect(await user.signUp(account)).toMatchObject({ status: 302 });
    const organizationId = (await ctx.db.users.findOne({ email: account.email }).lean())?.organizationIds[0];
    await ctx.db.channels.create({
      organizationId,
      provider: 'mastodon',
      name: 'Library channel',
      instanceUrl: 'https://mastodon.example',
      tokenSealed: ctx.secrets.seal('token'),
    });
  });
  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
  });

  /** Records what the library sends, so the tests can tell which client authentication it used. */
  const recordingFetch: client.CustomFetch = async (url, options) => {
    // The library sends its token requests as forms; other bodies are not looked at here.
    const body = options.body instanceof URLSearchParams ? options.body.toString() : '';
    sent.push({ url, method: options.method, headers: options.headers, body });
    return fetch(url, options);
  };

  /** Discovery from the issuer alone; http is allowed because the test server has no TLS. */
  async function discover(authentication: client.ClientAuth, secret = clientSecret): Promise<client.Configuration> {
    const config = await client.discovery(new URL(issuer), clientId, { client_secret: secret }, authentication, {
      algorithm: 'oauth2',
      // eslint-disable-next-line @typescript-eslint/no-deprecated -- deprecated only to stand out; no TLS here
      execute: [client.allowInsecureRequests],
      [client.customFetch]: recordingFetch,
    });
    config[client.customFetch] = recordingFetch;
    return config;
  }

  /** The library builds the authorization URL (with PKCE), the user decides, and the redirect comes back. */
  async function authorize(config: client.Configuration, decision: 'approve' | 'deny' = 'approve') {
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: redirectUrl,
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
    });
    expect(url.origin + url.pathname).toBe(`${issuer}/oauth/authorize`);
    const { answer } = await decideOnConsent(user, url.pathname + url.search, decision);
    expect(answer.status).toBe(302);
    const checks = { pkceCodeVerifier: verifier, expectedState: state };
    return { callbackUrl: new URL(answer.location ?? ''), checks };
  }

  const lastTokenRequest = (): SentRequest => {
    const request = sent.filter((entry) => entry.url === `${issuer}/api/oauth/token`).at(-1);
    if (request === undefined) throw new Error('the library sent no token request');
    return request;
  };

  it('discovers the server, uses PKCE, exchanges the code with client_secret_basic and calls the API', async () => {
    const config = await discover(client.ClientSecretBasic(clientSecret));
    expect(config.serverMetadata()).toMatchObject({
      issuer,
      token_endpoint: `${issuer}/api/oauth/token`,
      code_challenge_methods_supported: ['S256'],
    });
    const { callbackUrl, checks } = await authorize(config);
    const tokens = await client.authorizationCodeGrant(config, callbackUrl, checks);
    expect(tokens).toMatchObject({
      token_type: 'bearer',
      scope: 'public_api',
      access_token: expect.stringMatching(/^pos_/) as unknown,
    });

    const tokenRequest = lastTokenRequest();
    // RFC 6749 §2.3.1: the library form-encodes each half (it encodes even `_` and `-`) before base64.
    const credentials = Buffer.from(tokenRequest.headers.authorization?.replace(/^Basic /, '') ?? '', 'base64');
    const halves = credentials.toString().split(':').map((half) => decodeURIComponent(half));
    expect(halves).toEqual([clientId, clientSecret]);
    const form = new URLSearchParams(tokenRequest.body);
    expect(form.has('client_secret')).toBe(false);
    expect(form.get('redirect_uri')).toBe(redirectUrl);
    expect(form.get('code_verifier')).toBe(checks.pkceCodeVerifier);

    const resource = new URL(`${issuer}/api/public/v1/integrations`);
    const response = await client.fetchProtectedResource(config, tokens.access_token, resource, 'GET');
    expect(response.status).toBe(200);
    const channel = expect.objectContaining({ name: 'Library channel', identifier: 'mastodon' }) as unknown;
    expect(await response.json()).toEqual([channel]);
  });

  it('works with client_secret_post too', async () => {
    const config = await discover(client.ClientSecretPost(clientSecret));
    const { callbackUrl, checks } = await authorize(config);
    const tokens = await client.authorizationCodeGrant(config, callbackUrl, checks);
    expect(tokens.access_token).toMatch(/^pos_/);
    const tokenRequest = lastTokenRequest();
    expect(tokenRequest.headers.authorization).toBeUndefined();
    expect(new URLSearchParams(tokenRequest.body).get('client_secret')).toBe(clientSecret);
  });

  it('hands the library a denial as access_denied', async () => {
    const config = await discover(client.ClientSecretBasic(clientSecret));
    const { callbackUrl, checks } = await authorize(config, 'deny');
    const refusal = await client.authorizationCodeGrant(config, callbackUrl, checks).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(client.AuthorizationResponseError);
    expect(refusal).toMatchObject({ error: 'access_denied' });
  });

  it('answers a wrong secret with the Basic challenge the library expects, and the code survives', async () => {
    const config = await discover(client.ClientSecretBasic(clientSecret));
    const { callbackUrl, checks } = await authorize(config);
    const wrong = await discover(client.ClientSecretBasic('pcs_wrong'), 'pcs_wrong');
    const refusal = await client.authorizationCodeGrant(wrong, callbackUrl, checks).catch((error: unknown) => error);
    // RFC 6749 §5.2: a 401 with a challenge for the scheme used, which the library surfaces as such.
    if (!(refusal instanceof client.WWWAuthenticateChallengeError)) throw new Error(`unexpected: ${String(refusal)}`);
    expect(refusal).toMatchObject({ status: 401, cause: [{ scheme: 'basic' }] });
    expect(await refusal.response.json()).toMatchObject({ error: 'invalid_client' });
    expect((await client.authorizationCodeGrant(config, callbackUrl, checks)).access_token).toMatch(/^pos_/);
  });
});
