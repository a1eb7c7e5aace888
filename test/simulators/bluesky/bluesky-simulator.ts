import { randomBytes } from 'node:crypto';
import { OperationCheck } from '../kit/operation-check.ts';
import {
  bearerToken, jsonBody, startSimulatorServer, type RunningSimulator, type SimulatedAnswer, type SimulatedRequest,
} from '../kit/simulator-server.ts';

/**
 * A local stand-in for a Bluesky PDS (the entryway or a self-hosted one) as far as sessions go:
 * com.atproto.server.createSession, refreshSession, and app.bsky.actor.getProfile (which a PDS
 * proxies to the AppView; answered here directly). It checks what the reference PDS checks:
 * the method, a JSON body with the lexicon's required properties, the Bearer token's kind
 * (access or refresh), its expiry and revocation, and rotates refresh tokens.
 * Errors are XRPC bodies `{error, message}`; bad tokens are HTTP 400, a wrong password 401.
 * Requests and answers are held to the lexicons (operations.json beside this file): a request
 * off them is refused as the PDS's lexicon validation refuses it, 400 `InvalidRequest`. Like the
 * PDS, it ignores fields and parameters the lexicons do not name (the lexicon data model is open).
 * Facts: ../shared/platforms/open-and-community.md, section 1.
 */
export interface SimulatedBlueskyAccount {
  did: string;
  handle: string;
  email: string;
  appPassword: string;
  displayName?: string;
  avatar?: string;
  /** Signing in with the main password of an account with email 2FA needs a code. */
  emailTwoFactor?: boolean;
}

export interface BlueskySimulator extends RunningSimulator {
  addAccount(account: SimulatedBlueskyAccount): void;
  /** Makes every token handed out so far expired, as two hours (access) or 90 days (refresh) would. */
  expireAll(): void;
}

interface Token {
  did: string;
  scope: 'com.atproto.appPass' | 'com.atproto.refresh';
  expired: boolean;
  revoked: boolean;
}

const accessLifetimeSeconds = 2 * 60 * 60;
const refreshLifetimeSeconds = 90 * 24 * 60 * 60;

function xrpcError(status: number, error: string, message: string): SimulatedAnswer {
  return { status, body: { error, message } };
}

function jwt(claims: object): string {
  const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${encode({ typ: 'at+jwt', alg: 'HS256' })}.${encode(claims)}.${randomBytes(24).toString('base64url')}`;
}

export async function startBlueskySimulator(): Promise<BlueskySimulator> {
  const accounts: SimulatedBlueskyAccount[] = [];
  const tokens = new Map<string, Token>();

  function issue(account: SimulatedBlueskyAccount): SimulatedAnswer {
    const now = Math.floor(Date.now() / 1000);
    const sub = account.did;
    const accessJwt = jwt({ scope: 'com.atproto.appPass', sub, iat: now, exp: now + accessLifetimeSeconds });
    const jti = randomBytes(8).toString('hex');
    const refreshJwt = jwt({ scope: 'com.atproto.refresh', sub, iat: now, exp: now + refreshLifetimeSeconds, jti });
    tokens.set(accessJwt, { did: account.did, scope: 'com.atproto.appPass', expired: false, revoked: false });
    tokens.set(refreshJwt, { did: account.did, scope: 'com.atproto.refresh', expired: false, revoked: false });
    return {
      status: 200,
      body: { accessJwt, refreshJwt, handle: account.handle, did: account.did, email: account.email, active: true },
    };
  }

  /** The token a request carries, or the refusal the PDS gives for it. */
  function authorized(request: SimulatedRequest, scope: Token['scope']): Token | SimulatedAnswer {
    const given = bearerToken(request);
    if (given === null) return xrpcError(401, 'AuthenticationRequired', 'Authentication Required');
    const token = tokens.get(given);
    if (token === undefined) return xrpcError(400, 'InvalidToken', 'Token could not be verified');
    if (token.expired) return xrpcError(400, 'ExpiredToken', 'Token has expired');
    if (token.revoked) return xrpcError(400, 'ExpiredToken', 'Token has been revoked');
    if (token.scope !== scope) return xrpcError(400, 'InvalidToken', 'Bad token scope');
    return token;
  }

  function createSession(request: SimulatedRequest): SimulatedAnswer {
    if (!(request.headers['content-type'] ?? '').startsWith('application/json')) {
      return xrpcError(400, 'InvalidRequest', 'Request encoding (Content-Type) required but not provided');
    }
    const body = jsonBody(request);
    const input = typeof body === 'object' && body !== null ? body as Record<string, unknown> : {};
    for (const property of ['identifier', 'password']) {
      if (typeof input[property] !== 'string') {
        return xrpcError(400, 'InvalidRequest', `Input must have the property "${property}"`);
      }
    }
    const identifier = String(input.identifier).toLowerCase().replace(/^@/, '');
    const account = accounts.find((candidate) => [candidate.did, candidate.handle, candidate.email]
      .some((name) => name.toLowerCase() === identifier));
    if (account === undefined || account.appPassword !== input.password) {
      return xrpcError(401, 'AuthenticationRequired', 'Invalid identifier or password');
    }
    return issue(account);
  }

  function refreshSession(request: SimulatedRequest): SimulatedAnswer {
    const token = authorized(request, 'com.atproto.refresh');
    if (!('did' in token)) return token;
    const account = accounts.find((candidate) => candidate.did === token.did);
    // The reference PDS's refreshSession handler words a missing account so.
    if (account === undefined) {
      return xrpcError(400, 'InvalidRequest', `Could not find user info for account: ${token.did}`);
    }
    token.revoked = true;
    return issue(account);
  }

  function getProfile(request: SimulatedRequest): SimulatedAnswer {
    const token = authorized(request, 'com.atproto.appPass');
    if (!('did' in token)) return token;
    const actor = request.query.get('actor');
    if (actor === null) return xrpcError(400, 'InvalidRequest', 'Params must have the property "actor"');
    const account = accounts.find((candidate) => candidate.did === actor || candidate.handle === actor);
    if (account === undefined) return xrpcError(400, 'InvalidRequest', 'Profile not found');
    return {
      status: 200,
      body: {
        did: account.did,
        handle: account.handle,
        ...(account.displayName === undefined ? {} : { displayName: account.displayName }),
        ...(account.avatar === undefined ? {} : { avatar: account.avatar }),
        followersCount: 0,
        followsCount: 0,
        postsCount: 0,
      },
    };
  }

  const procedures: Record<string, (request: SimulatedRequest) => SimulatedAnswer> = {
    'com.atproto.server.createSession': createSession,
    'com.atproto.server.refreshSession': refreshSession,
  };
  const queries: Record<string, (request: SimulatedRequest) => SimulatedAnswer> = {
    'app.bsky.actor.getProfile': getProfile,
  };

  function answer(request: SimulatedRequest): SimulatedAnswer | undefined {
    const nsid = /^\/xrpc\/([A-Za-z0-9.]+)$/.exec(request.path)?.[1];
    if (nsid === undefined) return undefined;
    const procedure = procedures[nsid];
    const query = queries[nsid];
    // XRPC: procedures are POST, queries GET; the other method is refused like an unknown one.
    const wrongMethod = (expected: string) => {
      const message = `Incorrect HTTP method (${request.method}) expected ${expected}`;
      return xrpcError(405, 'InvalidRequest', message);
    };
    if (procedure !== undefined) return request.method === 'POST' ? procedure(request) : wrongMethod('POST');
    if (query !== undefined) return request.method === 'GET' ? query(request) : wrongMethod('GET');
    return xrpcError(501, 'MethodNotImplemented', 'Method Not Implemented');
  }

  const server = await startSimulatorServer(answer, xrpcError(404, 'NotFound', 'Not Found'), {
    operations: {
      check: OperationCheck.forPlatform('bluesky'),
      refuse: (problems) => xrpcError(400, 'InvalidRequest', problems.join('; ')),
    },
  });
  return {
    ...server,
    addAccount: (account) => { accounts.push(account); },
    expireAll: () => { for (const token of tokens.values()) token.expired = true; },
  };
}
