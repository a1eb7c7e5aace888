import { z } from 'zod';
import type { ConnectionPolicy } from '../../net/connection-policy.ts';
import type { ChannelCredentials } from '../kit/platform-adapter.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { unreadableAnswer } from '../kit/unreadable-answer.ts';
import { provider, xrpc, type XrpcCall, type XrpcServer } from './xrpc.ts';

/**
 * The channel's session on its PDS: the access JWT that connect.ts got from createSession with the
 * app password, renewed by the token lifecycle with refreshSession (connect.ts `refresh`) before it
 * expires or when the PDS answers ExpiredToken. The app password itself is never stored, and SPS
 * never signs in per post (the login budget is 30 per 5 minutes).
 */
export interface BlueskySession {
  server: XrpcServer;
  did: string;
  handle: string;
  accessJwt: string;
  /** A call as this account, with its access JWT and the adapter's timeout. */
  call(call: Omit<XrpcCall, 'token' | 'timeoutMs'>): Promise<unknown>;
}

const claims = z.object({ sub: z.string().startsWith('did:') });
const described = z.object({ did: z.string(), handle: z.string().min(1) });

export function channelServer(
  channel: ChannelCredentials,
  entryway: string,
  userHosts: ConnectionPolicy,
): XrpcServer {
  return channel.instanceUrl === null
    ? { origin: entryway, userHost: undefined }
    : { origin: channel.instanceUrl, userHost: userHosts };
}

/**
 * The account the access JWT is for: its `sub` claim. SPS reads it without checking the
 * signature; the PDS checks the token on every call and refuses a forged one.
 */
function accountOf(accessJwt: string): string {
  let payload: unknown = null;
  try {
    payload = JSON.parse(Buffer.from(accessJwt.split('.')[1] ?? '', 'base64url').toString('utf8')) as unknown;
  } catch {
    // Not a JWT: reported below as a session to replace.
  }
  const parsed = claims.safeParse(payload);
  if (!parsed.success) {
    const message = 'the stored Bluesky session is unreadable; connect the channel again';
    throw new PlatformError({ kind: 'disconnected', provider, message });
  }
  return parsed.data.sub;
}

/**
 * The account and its current handle (describeRepo, a public read of the repository, which also
 * tells a taken-down account: RepoTakendown), for the web address of its posts.
 */
export async function openSession(server: XrpcServer, accessJwt: string, timeoutMs: number): Promise<BlueskySession> {
  const did = accountOf(accessJwt);
  const call = (request: Omit<XrpcCall, 'token' | 'timeoutMs'>) =>
    xrpc(server, { ...request, token: accessJwt, timeoutMs });
  const repo = described.safeParse(
    await xrpc(server, {
      method: 'GET',
      nsid: 'com.atproto.repo.describeRepo',
      query: { repo: did },
      timeoutMs,
    }),
  );
  if (!repo.success || repo.data.did !== did) {
    throw unreadableAnswer(provider, 'Bluesky answered describeRepo with a body');
  }
  return { server, did, handle: repo.data.handle, accessJwt, call };
}
