import { z } from 'zod';
import type { ConnectionPolicy } from '../../net/connection-policy.ts';
import { userServerUrl } from '../kit/user-server-url.ts';
import type { ConnectContext, CredentialsConnect, UserTokens, VerifiedAccount } from '../kit/platform-connect.ts';
import { PlatformError, type PlatformErrorKind } from '../kit/platform-error.ts';
import { platformRequest, type PlatformRequest } from '../kit/platform-http.ts';

const provider = 'bluesky';

/** XRPC errors are `{error: <Name>, message}`; the message is what a person can act on. */
const errorBody = z.object({ error: z.string(), message: z.string().optional() });

function errorMessage(body: unknown): string | undefined {
  const parsed = errorBody.safeParse(body);
  if (!parsed.success) return undefined;
  const { error, message } = parsed.data;
  if (error === 'AuthFactorTokenRequired') {
    return 'Bluesky: this account signs in with an email code; use an app password (Settings > App passwords)';
  }
  return `Bluesky: ${message ?? error}`;
}

/**
 * An expired or unknown session comes back as HTTP 400 `ExpiredToken` / `InvalidToken`, not 401:
 * only signing in again helps, so the channel must be reconnected.
 */
function classify(_status: number, body: unknown): PlatformErrorKind | undefined {
  const parsed = errorBody.safeParse(body);
  if (!parsed.success) return undefined;
  return ['ExpiredToken', 'InvalidToken'].includes(parsed.data.error) ? 'disconnected' : undefined;
}

function unreadable(what: string): PlatformError {
  const message = `Bluesky answered ${what} with a body SPS could not read`;
  return new PlatformError({ kind: 'permanent', provider, message });
}

/** The PDS origin from what the user typed ("pds.example.com", "https://pds.example.com/"). */
export function blueskyServerOrigin(typed: string, policy: ConnectionPolicy): string {
  return userServerUrl(typed, policy, { provider, serverName: 'the Bluesky server' });
}

/** When the session expires, from the JWT's own `exp`: SPS does not verify it, the PDS does. */
export function jwtExpiry(jwt: string): Date | null {
  const payload = jwt.split('.')[1] ?? '';
  // Read the one claim without parsing: an opaque token simply has no expiry known.
  const exp = /"exp"\s*:\s*(\d+)/.exec(Buffer.from(payload, 'base64url').toString('utf8'))?.[1];
  return exp === undefined ? null : new Date(Number(exp) * 1000);
}

const session = z.object({
  accessJwt: z.string().min(1),
  refreshJwt: z.string().min(1),
  did: z.string().startsWith('did:'),
  handle: z.string().min(1),
});

const profile = z.object({
  did: z.string(),
  handle: z.string(),
  displayName: z.string().optional(),
  avatar: z.string().optional(),
});

/** The user's own PDS when they typed one (a user-given host), else the configured entryway. */
interface Server {
  origin: string;
  userHost: ConnectionPolicy | undefined;
}

function serverFor(instanceUrl: string | null, context: ConnectContext): Server {
  return instanceUrl === null
    ? { origin: context.app.apiUrl, userHost: undefined }
    : { origin: instanceUrl, userHost: context.userHosts };
}

function xrpc(server: Server, context: ConnectContext, call: Pick<PlatformRequest, 'method' | 'json' | 'headers'> & {
  nsid: string;
  query?: Record<string, string>;
}): Promise<unknown> {
  const query = call.query === undefined ? '' : `?${new URLSearchParams(call.query).toString()}`;
  return platformRequest({
    provider,
    serverName: server.userHost === undefined ? 'Bluesky' : 'the Bluesky server',
    method: call.method,
    url: `${server.origin}/xrpc/${call.nsid}${query}`,
    ...(call.json === undefined ? {} : { json: call.json }),
    ...(call.headers === undefined ? {} : { headers: call.headers }),
    timeoutMs: context.timeoutMs,
    errorMessage,
    classify,
    ...(server.userHost === undefined ? {} : { userHost: server.userHost }),
  });
}

export const blueskyConnect: CredentialsConnect = {
  kind: 'credentials',
  fields: [
    {
      key: 'identifier',
      label: 'Handle',
      kind: 'text',
      help: 'Your handle (like alice.bsky.social), or the email address or DID you sign in with.',
    },
    {
      key: 'appPassword',
      label: 'App password',
      kind: 'secret',
      help: 'Create one in Bluesky under Settings > Privacy and security > App passwords; not your account password.',
    },
    {
      key: 'pdsUrl',
      label: 'Hosting provider',
      kind: 'url',
      help: 'Only if your account is not hosted by Bluesky: the address of your PDS, like https://pds.example.com.',
      optional: true,
    },
  ],

  async verify(values, context): Promise<VerifiedAccount> {
    const typed = values.pdsUrl ?? '';
    const instanceUrl = typed === '' ? null : blueskyServerOrigin(typed, context.userHosts);
    const server = serverFor(instanceUrl, context);
    const created = session.safeParse(await xrpc(server, context, {
      method: 'POST',
      nsid: 'com.atproto.server.createSession',
      json: { identifier: values.identifier ?? '', password: values.appPassword ?? '' },
    }));
    if (!created.success) throw unreadable('createSession');
    const { accessJwt, refreshJwt, did, handle } = created.data;

    // The PDS answers app.bsky reads by proxying them to the AppView.
    const found = profile.safeParse(await xrpc(server, context, {
      method: 'GET',
      nsid: 'app.bsky.actor.getProfile',
      query: { actor: did },
      headers: { Authorization: `Bearer ${accessJwt}` },
    }));
    if (!found.success) throw unreadable('getProfile');
    const displayName = found.data.displayName?.trim() ?? '';

    return {
      // Handles can change; the DID is the account for as long as it exists.
      accountId: did,
      name: displayName === '' ? handle : displayName,
      username: handle,
      picture: found.data.avatar ?? null,
      instanceUrl,
      accessToken: accessJwt,
      refreshToken: refreshJwt,
      expiresAt: jwtExpiry(accessJwt),
    };
  },

  async refresh(refreshToken, instanceUrl, context): Promise<UserTokens> {
    const renewed = session.safeParse(await xrpc(serverFor(instanceUrl, context), context, {
      method: 'POST',
      nsid: 'com.atproto.server.refreshSession',
      headers: { Authorization: `Bearer ${refreshToken}` },
    }));
    if (!renewed.success) throw unreadable('refreshSession');
    // The refresh token rotates: the one just used is spent.
    const { accessJwt, refreshJwt } = renewed.data;
    return { accessToken: accessJwt, refreshToken: refreshJwt, expiresAt: jwtExpiry(accessJwt) };
  },
};
