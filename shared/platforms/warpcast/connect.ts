import { z } from 'zod';
import type { ConnectContext, CredentialsConnect, VerifiedAccount } from '../kit/platform-connect.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { platformRequest } from '../kit/platform-http.ts';
import { encodeWarpcastCredential } from './credential.ts';
import { neynarErrorMessage } from './neynar-errors.ts';

const provider = 'warpcast';

const signer = z.object({
  signer_uuid: z.string(),
  status: z.enum(['generated', 'pending_approval', 'approved', 'revoked']),
  signer_approval_url: z.string().optional(),
  fid: z.number().int().positive().optional(),
});

const user = z.object({
  fid: z.number().int().positive(),
  username: z.string().min(1),
  // Neynar's User types both as string or null: an account that never set them has null.
  display_name: z.string().nullish(),
  pfp_url: z.string().nullish(),
});

function refused(message: string): PlatformError {
  return new PlatformError({ kind: 'permanent', provider, message });
}

function get(context: ConnectContext, apiKey: string, path: string, query: Record<string, string>): Promise<unknown> {
  return platformRequest({
    provider,
    serverName: 'Neynar',
    method: 'GET',
    url: `${context.app.apiUrl}${path}?${new URLSearchParams(query).toString()}`,
    headers: { 'x-api-key': apiKey },
    timeoutMs: context.timeoutMs,
    errorMessage: neynarErrorMessage,
  });
}

/** Only an approved signer can cast; the others say what the user still has to do. */
function approvedFid(found: z.infer<typeof signer>): number {
  switch (found.status) {
    case 'approved':
      if (found.fid === undefined) throw refused('Neynar: the signer is approved but names no Farcaster account');
      return found.fid;
    case 'pending_approval': {
      const where = found.signer_approval_url === undefined ? '' : ` at ${found.signer_approval_url}`;
      throw refused(`Neynar: the signer waits for approval in the Farcaster app${where}; approve it, then connect`);
    }
    case 'generated':
      throw refused('Neynar: the signer was created but never sent for approval; register it (signed_key) first');
    case 'revoked':
      throw refused('Neynar: the signer was revoked; create and approve a new one');
  }
}

export const warpcastConnect: CredentialsConnect = {
  kind: 'credentials',
  fields: [
    {
      key: 'apiKey',
      label: 'Neynar API key',
      kind: 'secret',
      help: 'From the Neynar developer portal (dev.neynar.com), the app whose signer posts for you.',
    },
    {
      key: 'signerUuid',
      label: 'Signer UUID',
      kind: 'secret',
      help: 'The signer_uuid of an approved signer created with that API key (Neynar portal or Sign in with Neynar).',
    },
  ],

  async verify(values, context): Promise<VerifiedAccount> {
    const apiKey = values.apiKey ?? '';
    const signerUuid = values.signerUuid ?? '';
    const found = signer.safeParse(await get(context, apiKey, '/v2/farcaster/signer', { signer_uuid: signerUuid }));
    if (!found.success) throw refused('Neynar answered the signer lookup with a body SPS could not read');
    const fid = approvedFid(found.data);

    const users = z.object({ users: z.array(user) })
      .safeParse(await get(context, apiKey, '/v2/farcaster/user/bulk', { fids: String(fid) }));
    if (!users.success) throw refused('Neynar answered the user lookup with a body SPS could not read');
    const me = users.data.users.find((candidate) => candidate.fid === fid);
    if (me === undefined) throw refused(`Neynar knows no Farcaster user with fid ${String(fid)}`);
    const displayName = me.display_name?.trim() ?? '';

    return {
      // The fid is the account; usernames can change hands.
      accountId: String(fid),
      name: displayName === '' ? me.username : displayName,
      username: me.username,
      picture: me.pfp_url ?? null,
      instanceUrl: null,
      accessToken: encodeWarpcastCredential({ apiKey, signerUuid }),
      refreshToken: null,
      expiresAt: null,
    };
  },
};
