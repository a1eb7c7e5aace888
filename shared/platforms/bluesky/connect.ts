import { z } from 'zod';
import type { ConnectionPolicy } from '../../net/connection-policy.ts';
import { userServerUrl } from '../kit/user-server-url.ts';
import type { ConnectContext, CredentialsConnect, UserTokens, VerifiedAccount } from '../kit/platform-connect.ts';
import { PlatformError, type PlatformErrorKind } from '../kit/platform-error.ts';
import { unreadableAnswer } from '../kit/unreadable-answer.ts';
import { provider, refusalName, xrpc, xrpcErrorName, type XrpcCall, type XrpcServer } from './xrpc.ts';

/**
 * An expired or unknown session comes back as HTTP 400 `ExpiredToken` / `InvalidToken`, not 401:
 * here, signing in or renewing, only signing in again helps, so the channel must be reconnected.
 */
function classify(_status: number, body: unknown): PlatformErrorKind | undefined {
  const name = xrpcErrorName(body);
  return name === 'ExpiredToken' || name === 'InvalidToken' ? 'disconnected' : undefined;
}

function unreadable(what: string): PlatformError {
  return unreadableAnswer(provider, `Bluesky answered ${what} with a body`);
}

/** The PDS origin from what the user typed ("pds.example.com", "https://pds.example.com/"). */
export function blueskyServerOrigin(typed: string, policy: ConnectionPolicy): string {
  return userServerUrl(typed, policy, { provider, serverName: 'the Bluesky server' });
}

/**
 * The handle as the PDS takes it: Bluesky shows handles as "@alice.bsky.social", and users copy
 * the "@", which createSession refuses as a wrong identifier or password.
 */
function signInIdentifier(typed: string): string {
  return typed.trim().replace(/^@/, '');
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

const profileRecord = z.object({
  value: z.object({
    displayName: z.string().optional(),
    avatar: z.object({ ref: z.object({ $link: z.string().min(1) }) }).optional(),
  }),
});

function serverFor(instanceUrl: string | null, context: ConnectContext): XrpcServer {
  return instanceUrl === null
    ? { origin: context.app.apiUrl, userHost: undefined }
    : { origin: instanceUrl, userHost: context.userHosts };
}

function call(server: XrpcServer, context: ConnectContext, request: Omit<XrpcCall, 'timeoutMs' | 'classify'>) {
  return xrpc(server, { ...request, timeoutMs: context.timeoutMs, classify });
}

/**
 * The profile as the AppView shows it, through the PDS. A PDS that cannot reach an AppView (a
 * self-hosted one without it: the reference PDS answers 502 UpstreamFailure) still holds the
 * account's own profile record, which gives the display name and the avatar blob.
 */
async function readProfile(server: XrpcServer, context: ConnectContext, did: string, accessJwt: string) {
  try {
    const found = profile.safeParse(
      await call(server, context, {
        method: 'GET',
        nsid: 'app.bsky.actor.getProfile',
        query: { actor: did },
        token: accessJwt,
      }),
    );
    if (!found.success) throw unreadable('getProfile');
    return { displayName: found.data.displayName, avatar: found.data.avatar };
  } catch (error) {
    const answeredRefusal = error instanceof PlatformError && error.httpStatus !== null
      && error.kind !== 'disconnected' && error.kind !== 'refresh_token';
    if (!answeredRefusal) throw error;
    return readProfileRecord(server, context, did, error);
  }
}

async function readProfileRecord(
  server: XrpcServer,
  context: ConnectContext,
  did: string,
  appViewFailure: PlatformError,
) {
  let answer: unknown;
  try {
    answer = await call(server, context, {
      method: 'GET',
      nsid: 'com.atproto.repo.getRecord',
      query: { repo: did, collection: 'app.bsky.actor.profile', rkey: 'self' },
    });
  } catch (error) {
    // An account that never saved a profile has none: it is named by its handle.
    if (refusalName(error) === 'RecordNotFound')
      return { displayName: undefined, avatar: undefined };
    throw new PlatformError({ kind: appViewFailure.kind, provider, message: appViewFailure.message, cause: error });
  }
  const record = profileRecord.safeParse(answer);
  if (!record.success) throw unreadable('getRecord');
  const { displayName, avatar } = record.data.value;
  const query = avatar === undefined ? null : new URLSearchParams({ did, cid: avatar.ref.$link }).toString();
  return {
    displayName,
    avatar: query === null ? undefined : `${server.origin}/xrpc/com.atproto.sync.getBlob?${query}`,
  };
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
    const created = session.safeParse(
      await call(server, context, {
        method: 'POST',
        nsid: 'com.atproto.server.createSession',
        json: { identifier: signInIdentifier(values.identifier ?? ''), password: values.appPassword ?? '' },
      }),
    );
    if (!created.success) throw unreadable('createSession');
    const { accessJwt, refreshJwt, did, handle } = created.data;

    const found = await readProfile(server, context, did, accessJwt);
    const displayName = found.displayName?.trim() ?? '';

    return {
      // Handles can change; the DID is the account for as long as it exists.
      accountId: did,
      name: displayName === '' ? handle : displayName,
      username: handle,
      picture: found.avatar ?? null,
      instanceUrl,
      accessToken: accessJwt,
      refreshToken: refreshJwt,
      expiresAt: jwtExpiry(accessJwt),
    };
  },

  async refresh(refreshToken, instanceUrl, context): Promise<UserTokens> {
    const renewed = session.safeParse(
      await call(serverFor(instanceUrl, context), context, {
        method: 'POST',
        nsid: 'com.atproto.server.refreshSession',
        token: refreshToken,
      }),
    );
    if (!renewed.success) throw unreadable('refreshSession');
    // The refresh token rotates: the one just used is spent.
    const { accessJwt, refreshJwt } = renewed.data;
    return { accessToken: accessJwt, refreshToken: refreshJwt, expiresAt: jwtExpiry(accessJwt) };
  },
};
