import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNeynarSimulator, type NeynarSimulator } from '../../../test/simulators/warpcast/neynar-simulator.ts';
import { memoryCheckpoint } from '../../../test/support/part-checkpoint.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import type { ChannelCredentials, PlatformAdapter } from '../kit/platform-adapter.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { createWarpcastAdapter } from './adapter.ts';
import { encodeWarpcastCredential } from './credential.ts';

const apiKey = 'NEYNAR-APP-KEY-1';
const approved = '19d0c5fd-9b33-4a48-a0e2-bc7b0555baec';
const revoked = '39d0c5fd-9b33-4a48-a0e2-bc7b0555baec';

let neynar: NeynarSimulator;
let adapter: PlatformAdapter;

const channel = (signerUuid = approved): ChannelCredentials =>
  ({ channelId: 'c1', accessToken: encodeWarpcastCredential({ apiKey, signerUuid }), instanceUrl: null });

beforeAll(async () => {
  neynar = await startNeynarSimulator();
  neynar.addApiKey(apiKey);
  neynar.addSigner({ uuid: approved, apiKey, status: 'approved', fid: 3621 });
  neynar.addSigner({ uuid: revoked, apiKey, status: 'revoked', fid: 3621 });
  neynar.addUser({ fid: 3621, username: 'alice' });
  adapter = createWarpcastAdapter({ timeoutMs: 1_000, userHosts: connectionPolicyFor(false) }, { apiUrl: neynar.url });
});

afterAll(async () => {
  await neynar.close();
});

describe('warpcast adapter: removing casts', () => {
  it('deletes the cast with the signer; a second removal finds it gone', async () => {
    const cast = await adapter.publish({
      channel: channel(), content: 'Cast, then gone', media: [], settings: {}, idempotencyKey: 'k1',
      checkpoint: memoryCheckpoint(),
    });
    await adapter.remove?.(channel(), { releaseId: cast.releaseId, settings: {} });
    expect(neynar.casts.some((item) => item.hash === cast.releaseId)).toBe(false);
    await expect(adapter.remove?.(channel(), { releaseId: cast.releaseId, settings: {} })).resolves.toBeUndefined();
  });

  it('fails when the signer can no longer act for the account', async () => {
    const cast = await adapter.publish({
      channel: channel(), content: 'Stays', media: [], settings: {}, idempotencyKey: 'k2',
      checkpoint: memoryCheckpoint(),
    });
    const refusal = await adapter.remove?.(channel(revoked), { releaseId: cast.releaseId, settings: {} })
      .catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(PlatformError);
    expect(neynar.casts.some((item) => item.hash === cast.releaseId)).toBe(true);
  });
});
