import {
  startSimulatorServer, type RunningSimulator, type SimulatedAnswer, type SimulatedRequest,
} from '../kit/simulator-server.ts';

/**
 * A local stand-in for Neynar's v2 Farcaster API as far as connecting goes: signer lookup
 * (GET /v2/farcaster/signer) and user lookup (GET /v2/farcaster/user/bulk). It checks the
 * `x-api-key` header, the required query parameters, and that a signer is only visible to the
 * API key that created it; errors are ErrorRes `{message, code?, property?, status?}`.
 * A bad API key's answer is not in Neynar's spec: assumed 401 ErrorRes, like its other errors.
 * Facts: ../shared/platforms/open-and-community.md, section 3.
 */
export interface SimulatedSigner {
  uuid: string;
  /** The API key that created it. */
  apiKey: string;
  status: 'generated' | 'pending_approval' | 'approved' | 'revoked';
  fid?: number;
}

export interface SimulatedFarcasterUser {
  fid: number;
  username: string;
  displayName?: string;
  pfpUrl?: string;
}

export interface NeynarSimulator extends RunningSimulator {
  addApiKey(key: string): void;
  addSigner(signer: SimulatedSigner): void;
  addUser(user: SimulatedFarcasterUser): void;
}

function errorRes(status: number, message: string, extra: { code?: string; property?: string } = {}): SimulatedAnswer {
  return { status, body: { message, ...extra, status } };
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function startNeynarSimulator(): Promise<NeynarSimulator> {
  const apiKeys = new Set<string>();
  const signers: SimulatedSigner[] = [];
  const users: SimulatedFarcasterUser[] = [];

  function lookupSigner(request: SimulatedRequest, apiKey: string): SimulatedAnswer {
    const uuid = request.query.get('signer_uuid');
    if (uuid === null || !uuidPattern.test(uuid)) {
      return errorRes(400, 'signer_uuid must be a valid UUID', { code: 'InvalidField', property: 'signer_uuid' });
    }
    const signer = signers.find((candidate) => candidate.uuid === uuid && candidate.apiKey === apiKey);
    if (signer === undefined) return errorRes(404, 'Signer not found', { code: 'NotFound', property: 'signer_uuid' });
    const token = `0x${signer.uuid.replace(/-/g, '')}`;
    const approvalUrl = `https://client.farcaster.xyz/deeplinks/signed-key-request?token=${token}`;
    return {
      status: 200,
      body: {
        object: 'signer',
        signer_uuid: signer.uuid,
        public_key: `0x${'ab'.repeat(32)}`,
        status: signer.status,
        ...(signer.status === 'pending_approval' ? { signer_approval_url: approvalUrl } : {}),
        ...(signer.fid === undefined || signer.status === 'generated' ? {} : { fid: signer.fid }),
      },
    };
  }

  function bulkUsers(request: SimulatedRequest): SimulatedAnswer {
    const fids = request.query.get('fids');
    if (fids === null || !/^\d+(,\d+)*$/.test(fids)) {
      return errorRes(400, 'fids must be a comma-separated list of fids', { code: 'InvalidField', property: 'fids' });
    }
    const wanted = fids.split(',').map(Number);
    const found = users.filter((candidate) => wanted.includes(candidate.fid)).map((candidate) => ({
      object: 'user',
      fid: candidate.fid,
      username: candidate.username,
      ...(candidate.displayName === undefined ? {} : { display_name: candidate.displayName }),
      ...(candidate.pfpUrl === undefined ? {} : { pfp_url: candidate.pfpUrl }),
      follower_count: 0,
      following_count: 0,
    }));
    return { status: 200, body: { users: found } };
  }

  function answer(request: SimulatedRequest): SimulatedAnswer | undefined {
    const apiKey = request.headers['x-api-key'];
    if (typeof apiKey !== 'string' || !apiKeys.has(apiKey)) {
      return errorRes(401, 'Unauthorized: invalid or missing API key');
    }
    if (request.method !== 'GET') return undefined;
    if (request.path === '/v2/farcaster/signer') return lookupSigner(request, apiKey);
    if (request.path === '/v2/farcaster/user/bulk') return bulkUsers(request);
    return undefined;
  }

  const server = await startSimulatorServer(answer, errorRes(404, 'Not Found'));
  return {
    ...server,
    addApiKey: (key) => { apiKeys.add(key); },
    addSigner: (signer) => { signers.push(signer); },
    addUser: (user) => { users.push(user); },
  };
}
