import { randomBytes } from 'node:crypto';
import { OAuthAuthority } from '../kit/oauth-authority.ts';
import { formBody, jsonBody, type SimulatedAnswer, type SimulatedRequest } from '../kit/simulator-server.ts';

/** Mastodon's token answer: tokens never expire, so no `expires_in` and no refresh token. */
const tokenAnswer = (tokens: { accessToken: string; scope: string }) => ({
  access_token: tokens.accessToken,
  token_type: 'Bearer',
  scope: tokens.scope,
  created_at: Math.floor(Date.now() / 1000),
});

/** A hundred years: Mastodon's user tokens live until revoked. */
const untilRevoked = 100 * 365 * 24 * 3600;

interface RegisteredApp {
  authority: OAuthAuthority;
  redirectUris: string[];
}

/**
 * Mastodon's client registration (`POST /api/v1/apps`) and its Doorkeeper OAuth endpoints: each
 * registered app is its own client with the scopes it asked for; the authorize step checks the
 * redirect URI against the registered ones and PKCE S256 when a challenge is given (4.3+).
 */
export class MastodonApps {
  readonly #apps = new Map<string, RegisteredApp>();
  /** The account that approves the next authorization on the simulated consent page. */
  consentingUser = 'alice';
  /** Registrations served, for tests that prove SPS registers once per instance. */
  registrations = 0;

  /** The handler of one of these endpoints, or null for a call the simulator's API answers. */
  routeFor(method: string, path: string): ((request: SimulatedRequest) => SimulatedAnswer) | null {
    if (method === 'POST' && path === '/api/v1/apps') return (request) => this.register(request);
    if (method === 'GET' && path === '/oauth/authorize') return (request) => this.authorize(request);
    if (method === 'POST' && path === '/oauth/token') return (request) => this.token(request);
    return null;
  }

  register(request: SimulatedRequest): SimulatedAnswer {
    const fields =
      request.headers['content-type']?.startsWith('application/json') === true
        ? Object.fromEntries(
            Object.entries((jsonBody(request) ?? {}) as Record<string, unknown>).map(([key, value]) => [
              key,
              String(value),
            ]),
          )
        : Object.fromEntries(formBody(request));
    const name = fields.client_name ?? '';
    const redirectUris = (fields.redirect_uris ?? '').split(/\s+/).filter((uri) => uri !== '');
    if (name === '') return { status: 422, body: { error: 'Validation failed: Application name can\'t be blank' } };
    if (redirectUris.length === 0 || redirectUris.some((uri) => !/^https?:\/\/\S+$/.test(uri))) {
      return { status: 422, body: { error: 'Validation failed: Redirect URI must be an absolute URI.' } };
    }
    const scopes = (fields.scopes ?? 'read').split(' ').filter((scope) => scope !== '');
    const clientId = randomBytes(16).toString('base64url');
    const clientSecret = randomBytes(32).toString('base64url');
    const authority = new OAuthAuthority({
      clientId,
      clientSecret,
      clientAuthentication: 'basic-or-body',
      requirePkce: false,
      knownScopes: scopes,
      accessTokenSeconds: untilRevoked,
      refreshTokens: 'none',
      tokenAnswer,
    });
    this.#apps.set(clientId, { authority, redirectUris });
    this.registrations += 1;
    const body = {
      id: String(this.#apps.size),
      name,
      redirect_uris: redirectUris,
      // The pre-4.3 single field, still sent: the URIs joined by line breaks.
      redirect_uri: redirectUris.join('\n'),
      scopes,
      // Web Push's server key, sent to every application (deprecated in 4.3, still in the entity).
      vapid_key: 'BCk-QqERU0q-CfYZjcuB6lnyyOYfJ2AifKqfeGIm7Z-HiTU5T9eTG5GxVA0_OH5mMlI4UkkDTpaZwozy0TzdZ2M=',
      client_id: clientId,
      client_secret: clientSecret,
    };
    return { status: 200, body };
  }

  authorize(request: SimulatedRequest): SimulatedAnswer {
    const app = this.#apps.get(request.query.get('client_id') ?? '');
    const invalidClient = 'Client authentication failed due to unknown client, no client authentication included, '
      + 'or unsupported authentication method.';
    if (app === undefined)
      return { status: 401, body: { error: 'invalid_client', error_description: invalidClient } };
    if (!app.redirectUris.includes(request.query.get('redirect_uri') ?? '')) {
      return {
        status: 400,
        body: {
          error: 'invalid_redirect_uri',
          error_description: 'The requested redirect uri is malformed or doesn\'t match client redirect URI.',
        },
      };
    }
    app.authority.consentingUser = this.consentingUser;
    return app.authority.authorize(request);
  }

  token(request: SimulatedRequest): SimulatedAnswer {
    const basic = /^Basic (.+)$/i.exec(request.headers.authorization ?? '')?.[1];
    const clientId =
      basic === undefined
        ? formBody(request).get('client_id')
        : decodeURIComponent(Buffer.from(basic, 'base64').toString('utf8').split(':')[0] ?? '');
    const app = this.#apps.get(clientId ?? '');
    if (app === undefined)
      return { status: 401, body: { error: 'invalid_client', error_description: 'Client authentication failed.' } };
    return app.authority.token(request);
  }

  /** The account and scopes of a token issued through OAuth, or null. */
  grantOf(token: string): { user: string; scopes: string[] } | null {
    for (const app of this.#apps.values()) {
      const grant = app.authority.grantOf(token);
      if (grant !== null) return grant;
    }
    return null;
  }
}
