import { z } from 'zod';
import type { ConnectionPolicy } from '../../net/connection-policy.ts';
import type { ChannelCredentials } from '../kit/platform-adapter.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { provider, xrpc, type XrpcCall, type XrpcServer } from './xrpc.ts';

/**
 * The channel's session on its PDS: the access JWT that connect.ts got from createSession with the
 * app password, renewed by the token lifecycle with refreshSession (connect.ts `refresh`) before it
 * expires or when the PDS answers ExpiredToken. The app password itself is never stored.
 */
export interface BlueskySession {
  server: XrpcServer;
  did: string;
  handle: string;
  accessJwt: string;
  /** A call as this account, with its access JWT and the adapter's timeout. */
  call(call: Omit<XrpcCall, 'token' | 'timeoutMs'>): Promise<unknown>;
}

const sessionInfo = z.object({ did: z.string().startsWith('did:'), handle: z.string().min(1) });

export function channelServer(channel: ChannelCredentials, entryway: string, userHosts: ConnectionPolicy): XrpcServer {
  return channel.instanceUrl === null
    ? { origin: entryway, userHost: undefined }
    : { origin: channel.instanceUrl, userHost: userHosts };
}

/** Reads who the access JWT belongs to (getSession), which also finds out early that it expired. */
export async function openSession(server: XrpcServer, accessJwt: string, timeoutMs: number): Promise<BlueskySession> {
  const call = (request: Omit<XrpcCall, 'token' | 'timeoutMs'>) => xrpc(server, { ...request, token: accessJwt, timeoutMs });
  const info = sessionInfo.safeParse(await call({ method: 'GET', nsid: 'com.atproto.server.getSession' }));
  if (!info.success) {
    throw new PlatformError({ kind: 'permanent', provider, message: 'Bluesky answered getSession with a body SPS could not read' });
  }
  return { server, did: info.data.did, handle: info.data.handle, accessJwt, call };
}
