import { createHash, randomBytes } from 'node:crypto';
import { formBody, type SimulatedAnswer, type SimulatedRequest } from './simulator-server.ts';

/**
 * How one platform runs OAuth 2.0, as its simulator declares it: the authority below then
 * refuses what that platform refuses (a missing PKCE verifier, a client secret in the wrong
 * place, a redirect URI that differs from the authorize request's, a reused code...).
 */
export interface OAuthRules {
  clientId: string;
  clientSecret: string;
  /** The client id parameter's name on the authorize URL and token form (TikTok: client_key). */
  clientIdParameter?: string;
  /** Where the token endpoint accepts the client's credentials; `none`: a public client, its id alone. */
  clientAuthentication: 'basic' | 'body' | 'basic-or-body' | 'none';
  /** PKCE S256 required on every authorization. */
  requirePkce: boolean;
  /** Scopes the platform knows; an unknown one is refused at the authorize step. */
  knownScopes: readonly string[];
  scopeSeparator?: ' ' | ',';
  /** Authorize parameters the platform requires with a fixed value (Reddit: duration=permanent). */
  requiredAuthorizeParameters?: Readonly<Record<string, string>>;
  accessTokenSeconds: number;
  /** `rotate`: each refresh issues a new refresh token and voids the old one. */
  refreshTokens: 'rotate' | 'reuse' | 'none';
  /** The platform's error body for a token-endpoint refusal; defaults to RFC 6749 5.2. */
  tokenError?: (error: string, description: string) => SimulatedAnswer;
  /** The platform's token answer; defaults to RFC 6749 5.1. */
  tokenAnswer?: (tokens: IssuedTokens) => unknown;
  /**
   * Values the authority adds to its redirect back (VK ID: `device_id`), which the code
   * exchange and every refresh of the tokens issued must send back unchanged.
   */
  boundParameters?: readonly string[];
  /** The token form must carry `state`: the authorize request's in the exchange, any in a refresh (VK ID). */
  stateAtTokenEndpoint?: boolean;
  /** Authorization codes live this long (RFC 6749 recommends at most 10 minutes). */
  codeSeconds?: number;
}

export interface IssuedTokens {
  accessToken: string;
  refreshToken: string | null;
  expiresIn: number;
  scope: string;
}

interface PendingCode {
  redirectUri: string;
  state: string | null;
  bound: Readonly<Record<string, string>>;
  challenge: string | null;
  scope: string;
  user: string;
  expiresAt: number;
}

interface LiveToken {
  user: string;
  scope: string;
  expiresAt: number;
}

interface HeldRefresh {
  user: string;
  scope: string;
  bound: Readonly<Record<string, string>>;
}

const tokenKey = (value: string): string => createHash('sha256').update(value).digest('hex');

/** The authorize and token endpoints of one simulated platform, plus its token book. */
export class OAuthAuthority {
  readonly #rules: OAuthRules;
  readonly #codes = new Map<string, PendingCode>();
  readonly #access = new Map<string, LiveToken>();
  readonly #refresh = new Map<string, HeldRefresh>();
  /** The simulated clock: tests move it to expire tokens. */
  now: () => number = Date.now;
  /** The user who approves the next authorization (the simulated consent screen). */
  consentingUser = 'user-1';
  /** Set to make the consent screen refuse: the redirect carries error=access_denied. */
  refuseConsent = false;
  /** Counts of token grants served, by grant type, for tests that count refreshes. */
  readonly grants = { authorization_code: 0, refresh_token: 0 };

  constructor(rules: OAuthRules) {
    this.#rules = rules;
  }

  get rules(): OAuthRules {
    return this.#rules;
  }

  #idParameter(): string {
    return this.#rules.clientIdParameter ?? 'client_id';
  }

  /**
   * The consent page: checks the request as the platform does and, with consent given at once,
   * redirects back with a code. Errors before the redirect URI is trusted answer 400 here.
   */
  authorize(request: SimulatedRequest): SimulatedAnswer {
    const query = request.query;
    const refuse = (message: string): SimulatedAnswer => ({
      status: 400,
      body: { error: 'invalid_request', error_description: message },
    });
    if (query.get(this.#idParameter()) !== this.#rules.clientId) return refuse(`unknown ${this.#idParameter()}`);
    const redirectUri = query.get('redirect_uri');
    if (redirectUri === null || !/^https?:\/\//.test(redirectUri))
      return refuse('redirect_uri is missing or not absolute');
    if (query.get('response_type') !== 'code') return refuse('response_type must be code');
    for (const [name, value] of Object.entries(this.#rules.requiredAuthorizeParameters ?? {})) {
      if (query.get(name) !== value) return refuse(`${name} must be ${value}`);
    }
    const scope = query.get('scope') ?? '';
    const scopes = scope.split(this.#rules.scopeSeparator ?? ' ').filter((item) => item !== '');
    const unknown = scopes.filter((item) => !this.#rules.knownScopes.includes(item));
    const back = new URL(redirectUri);
    const state = query.get('state');
    if (state !== null) back.searchParams.set('state', state);
    const redirect = (): SimulatedAnswer => ({ status: 302, headers: { location: back.toString() } });
    if (unknown.length > 0 || scopes.length === 0) {
      back.searchParams.set('error', 'invalid_scope');
      back.searchParams.set('error_description', `unknown scope: ${unknown.join(', ') || '(none)'}`);
      return redirect();
    }
    const challenge = query.get('code_challenge');
    if (this.#rules.requirePkce && (challenge === null || query.get('code_challenge_method') !== 'S256')) {
      back.searchParams.set('error', 'invalid_request');
      back.searchParams.set('error_description', 'code_challenge with code_challenge_method S256 is required');
      return redirect();
    }
    if (this.refuseConsent) {
      back.searchParams.set('error', 'access_denied');
      back.searchParams.set('error_description', 'The user denied the request');
      return redirect();
    }
    const code = randomBytes(16).toString('hex');
    const expiresAt = this.now() + (this.#rules.codeSeconds ?? 600) * 1000;
    const bound = Object.fromEntries(
      (this.#rules.boundParameters ?? []).map((name) => [name, randomBytes(12).toString('base64url')]),
    );
    const user = this.consentingUser;
    this.#codes.set(code, { redirectUri, state, bound, challenge, scope: scopes.join(' '), user, expiresAt });
    back.searchParams.set('code', code);
    for (const [name, value] of Object.entries(bound)) back.searchParams.set(name, value);
    return redirect();
  }

  #error(status: number, error: string, description: string): SimulatedAnswer {
    return (
      this.#rules.tokenError?.(error, description) ?? { status, body: { error, error_description: description } }
    );
  }

  /** The client's credentials as the platform reads them; null when they are wrong or misplaced. */
  #clientOk(request: SimulatedRequest, form: URLSearchParams): boolean {
    const basic = /^Basic (.+)$/i.exec(request.headers.authorization ?? '')?.[1];
    const mode = this.#rules.clientAuthentication;
    if (basic !== undefined && mode !== 'body') {
      const [user = '', password = ''] = Buffer.from(basic, 'base64').toString('utf8').split(':');
      return (
        decodeURIComponent(user) === this.#rules.clientId && decodeURIComponent(password) === this.#rules.clientSecret
      );
    }
    if (mode === 'basic') return false;
    if (mode === 'none') return form.get(this.#idParameter()) === this.#rules.clientId;
    return (
      form.get(this.#idParameter()) === this.#rules.clientId && form.get('client_secret') === this.#rules.clientSecret
    );
  }

  #issue(user: string, scope: string, bound: Readonly<Record<string, string>>): IssuedTokens {
    const accessToken = `at-${randomBytes(16).toString('hex')}`;
    const refreshToken = this.#rules.refreshTokens === 'none' ? null : `rt-${randomBytes(16).toString('hex')}`;
    const expiresIn = this.#rules.accessTokenSeconds;
    this.#access.set(tokenKey(accessToken), { user, scope, expiresAt: this.now() + expiresIn * 1000 });
    if (refreshToken !== null) this.#refresh.set(tokenKey(refreshToken), { user, scope, bound });
    return { accessToken, refreshToken, expiresIn, scope };
  }

  #answer(tokens: IssuedTokens): SimulatedAnswer {
    const body = this.#rules.tokenAnswer?.(tokens) ?? {
      access_token: tokens.accessToken,
      token_type: 'bearer',
      expires_in: tokens.expiresIn,
      scope: tokens.scope,
      ...(tokens.refreshToken === null ? {} : { refresh_token: tokens.refreshToken }),
    };
    return { status: 200, body };
  }

  /** The token endpoint: authorization_code (with PKCE verification) and refresh_token grants. */
  token(request: SimulatedRequest): SimulatedAnswer {
    if (request.method !== 'POST') return this.#error(405, 'invalid_request', 'the token endpoint takes POST');
    if (!/application\/x-www-form-urlencoded/.test(request.headers['content-type'] ?? '')) {
      return this.#error(400, 'invalid_request', 'the body must be application/x-www-form-urlencoded');
    }
    const form = formBody(request);
    if (!this.#clientOk(request, form)) return this.#error(401, 'invalid_client', 'Client authentication failed');
    const grant = form.get('grant_type');
    if (grant === 'authorization_code') return this.#redeem(form);
    if (grant === 'refresh_token' && this.#rules.refreshTokens !== 'none') return this.#refreshGrant(form);
    return this.#error(400, 'unsupported_grant_type', `grant_type ${grant ?? '(none)'} is not supported`);
  }

  #redeem(form: URLSearchParams): SimulatedAnswer {
    const code = form.get('code') ?? '';
    const pending = this.#codes.get(code);
    this.#codes.delete(code);
    if (pending === undefined || pending.expiresAt <= this.now()) {
      return this.#error(400, 'invalid_grant', 'The authorization code is invalid or expired');
    }
    if (form.get('redirect_uri') !== pending.redirectUri)
      return this.#error(400, 'invalid_grant', 'redirect_uri does not match');
    const unbound = this.#unbound(form, pending.bound);
    if (unbound !== undefined) return this.#error(400, 'invalid_request', `${unbound} is missing or invalid`);
    if (this.#rules.stateAtTokenEndpoint === true && (form.get('state') ?? '') !== (pending.state ?? ''))
      return this.#error(400, 'invalid_request', 'state is missing or invalid');
    if (pending.challenge !== null) {
      const verifier = form.get('code_verifier') ?? '';
      const computed = createHash('sha256').update(verifier, 'ascii').digest('base64url');
      if (computed !== pending.challenge)
        return this.#error(400, 'invalid_grant', 'code_verifier does not match the challenge');
    }
    this.grants.authorization_code += 1;
    return this.#answer(this.#issue(pending.user, pending.scope, pending.bound));
  }

  #refreshGrant(form: URLSearchParams): SimulatedAnswer {
    const presented = form.get('refresh_token') ?? '';
    const held = this.#refresh.get(tokenKey(presented));
    if (held === undefined) return this.#error(400, 'invalid_grant', 'The refresh token is invalid or was revoked');
    const unbound = this.#unbound(form, held.bound);
    if (unbound !== undefined) return this.#error(400, 'invalid_request', `${unbound} is missing or invalid`);
    if (this.#rules.stateAtTokenEndpoint === true && (form.get('state') ?? '') === '')
      return this.#error(400, 'invalid_request', 'state is missing or invalid');
    this.grants.refresh_token += 1;
    if (this.#rules.refreshTokens === 'rotate') this.#refresh.delete(tokenKey(presented));
    const tokens = this.#issue(held.user, held.scope, held.bound);
    if (this.#rules.refreshTokens === 'reuse') {
      if (tokens.refreshToken !== null) this.#refresh.delete(tokenKey(tokens.refreshToken));
      return this.#answer({ ...tokens, refreshToken: presented });
    }
    return this.#answer(tokens);
  }

  /** The first bound value the form lacks or changed, if any. */
  #unbound(form: URLSearchParams, bound: Readonly<Record<string, string>>): string | undefined {
    return Object.keys(bound).find((name) => form.get(name) !== bound[name]);
  }

  /** Who a bearer token acts for, or null when it is unknown or expired (the API answers 401). */
  userOf(accessToken: string | null): string | null {
    return this.grantOf(accessToken)?.user ?? null;
  }

  /** The user and the scopes granted to a live bearer token. */
  grantOf(accessToken: string | null): { user: string; scopes: string[] } | null {
    if (accessToken === null) return null;
    const live = this.#access.get(tokenKey(accessToken));
    if (live === undefined || live.expiresAt <= this.now()) return null;
    return { user: live.user, scopes: live.scope.split(' ').filter((scope) => scope !== '') };
  }

  /** Voids every refresh token, as a user revoking the app does. */
  revokeAll(): void {
    this.#refresh.clear();
    this.#access.clear();
  }
}
