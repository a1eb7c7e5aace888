import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNeynarSimulator, type NeynarSimulator } from '../../../test/simulators/warpcast/neynar-simulator.ts';
import type { ConnectContext } from '../kit/platform-connect.ts';
import { warpcastConnect } from './connect.ts';
import { readWarpcastCredential } from './credential.ts';
import { platformFailure, testConnectContext } from '../../../test/simulators/kit/connect-context.ts';
import { closedOrigin } from '../../../test/support/free-port.ts';

function contextFor(apiUrl: string): ConnectContext {
  return testConnectContext({ apiUrl, timeoutMs: 5_000 });
}

const apiKey = 'NEYNAR-APP-KEY-1';
const approved = '19d0c5fd-9b33-4a48-a0e2-bc7b0555baec';
const pending = '29d0c5fd-9b33-4a48-a0e2-bc7b0555baec';
const revoked = '39d0c5fd-9b33-4a48-a0e2-bc7b0555baec';
const bare = '49d0c5fd-9b33-4a48-a0e2-bc7b0555baec';

let neynar: NeynarSimulator;
let context: ConnectContext;

beforeAll(async () => {
  neynar = await startNeynarSimulator();
  context = contextFor(neynar.url);
  neynar.addApiKey(apiKey);
  neynar.addApiKey('OTHER-APP-KEY');
  neynar.addSigner({ uuid: approved, apiKey, status: 'approved', fid: 3621 });
  neynar.addSigner({ uuid: pending, apiKey, status: 'pending_approval', fid: 3621 });
  neynar.addSigner({ uuid: revoked, apiKey, status: 'revoked', fid: 3621 });
  neynar.addUser({ fid: 3621, username: 'alice', displayName: 'Alice', pfpUrl: 'https://i.imgur.com/alice.png' });
  neynar.addSigner({ uuid: bare, apiKey, status: 'approved', fid: 4410 });
  neynar.addUser({ fid: 4410, username: 'bob' });
});

afterAll(async () => {
  await neynar.close();
});

describe('warpcast connect', () => {
  it('reads the approved signer\'s fid and that user\'s profile', async () => {
    const account = await warpcastConnect.verify({ apiKey, signerUuid: approved }, context);
    expect(account).toMatchObject({
      accountId: '3621',
      name: 'Alice',
      username: 'alice',
      picture: 'https://i.imgur.com/alice.png',
      instanceUrl: null,
    });
    expect(readWarpcastCredential(account.accessToken)).toEqual({ apiKey, signerUuid: approved });
    expect(neynar.received.at(-1)?.query.get('fids')).toBe('3621');
  });

  it('connects an account that set no display name or picture, which Neynar\'s User sends as null', async () => {
    const account = await warpcastConnect.verify({ apiKey, signerUuid: bare }, context);
    expect(account).toMatchObject({ accountId: '4410', name: 'bob', username: 'bob', picture: null });
  });

  it('shows Neynar\'s refusal of a wrong API key', async () => {
    const error = await platformFailure(warpcastConnect.verify({ apiKey: 'wrong', signerUuid: approved }, context));
    expect(error.message).toBe('Neynar: Unauthorized: invalid or missing API key');
    expect(error.kind).toBe('disconnected');
  });

  it('does not find a signer made with another API key', async () => {
    const error = await platformFailure(
      warpcastConnect.verify({ apiKey: 'OTHER-APP-KEY', signerUuid: approved }, context),
    );
    expect(error.message).toBe('Neynar: Signer not found (signer_uuid)');
    expect(error.kind).toBe('permanent');
  });

  it('shows Neynar\'s refusal of a malformed signer UUID', async () => {
    const error = await platformFailure(warpcastConnect.verify({ apiKey, signerUuid: 'not-a-uuid' }, context));
    expect(error.message).toContain('signer_uuid must be a valid UUID');
  });

  it('says what to do with a signer that is not approved', async () => {
    const waiting = await platformFailure(warpcastConnect.verify({ apiKey, signerUuid: pending }, context));
    expect(waiting.message).toContain('waits for approval in the Farcaster app at https://client.farcaster.xyz/');
    const gone = await platformFailure(warpcastConnect.verify({ apiKey, signerUuid: revoked }, context));
    expect(gone.message).toContain('revoked');
  });

  it('is retryable when Neynar cannot be reached', async () => {
    const offline = contextFor(await closedOrigin());
    const error = await platformFailure(warpcastConnect.verify({ apiKey, signerUuid: approved }, offline));
    expect(error.kind).toBe('retryable');
  });
});
