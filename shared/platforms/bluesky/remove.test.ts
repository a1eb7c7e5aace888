import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import { startTestBlueskyPds, type PdsAccount, type TestBlueskyPds } from '../../../test/support/bluesky-pds.ts';
import { memoryCheckpoint } from '../../../test/support/part-checkpoint.ts';
import { testConnectContext } from '../../../test/simulators/kit/connect-context.ts';
import type { ChannelCredentials } from '../kit/platform-adapter.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { createBlueskyAdapter } from './adapter.ts';
import { blueskyConnect } from './connect.ts';

const userHosts = connectionPolicyFor(true);
const adapter = createBlueskyAdapter({ timeoutMs: 5_000, userHosts }, { apiUrl: 'https://bsky.invalid' });

let pds: TestBlueskyPds;
let alice: PdsAccount;
let bob: PdsAccount;

beforeAll(async () => {
  pds = await startTestBlueskyPds();
  [alice, bob] = await Promise.all([pds.createAccount('alice'), pds.createAccount('bob')]);
}, 60_000);

afterAll(async () => {
  await pds.close();
});

async function channelOf(account: PdsAccount): Promise<ChannelCredentials> {
  const verified = await blueskyConnect.verify(
    { identifier: account.handle, appPassword: account.appPassword, pdsUrl: pds.url },
    testConnectContext({ userHosts, timeoutMs: 5_000 }),
  );
  const { accessToken, instanceUrl } = verified;
  return { channelId: `channel-${account.handle}`, accessToken, instanceUrl };
}

async function published(channel: ChannelCredentials, content: string): Promise<string> {
  const result = await adapter.publish({
    channel, content, media: [], settings: {}, idempotencyKey: `sps-post-${content}-${String(Date.now())}`,
    dueAt: new Date(), checkpoint: memoryCheckpoint(),
  });
  return result.releaseId;
}

describe('removing Bluesky posts from the reference PDS', () => {
  it('deletes the post record, and a second removal of it succeeds as already gone', async () => {
    const channel = await channelOf(alice);
    const releaseId = await published(channel, 'To be deleted');
    const kept = await published(channel, 'To be kept');
    expect((await pds.posts(alice)).map((record) => record.uri)).toContain(releaseId);

    await adapter.remove?.(channel, { releaseId, settings: {} });
    const left = (await pds.posts(alice)).map((record) => record.uri);
    expect(left).not.toContain(releaseId);
    expect(left).toContain(kept);
    await expect(adapter.remove?.(channel, { releaseId, settings: {} })).resolves.toBeUndefined();
  });

  it('refuses, as permanent, a post of another account\'s repository', async () => {
    const bobsPost = await published(await channelOf(bob), 'Bob\'s own');
    const refusal = await adapter.remove?.(await channelOf(alice), { releaseId: bobsPost, settings: {} })
      .catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(PlatformError);
    expect((refusal as PlatformError).kind).toBe('permanent');
    expect((await pds.posts(bob)).map((record) => record.uri)).toContain(bobsPost);
  });
});
