import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNostrRelay, type RunningNostrRelay } from '../../../scripts/local/nostr-relay.ts';
import { eventsOnRelay } from '../../../test/simulators/nostr/nostr-relay-client.ts';
import { memoryCheckpoint } from '../../../test/support/part-checkpoint.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { createNostrAdapter } from './adapter.ts';
import { encodeNostrCredential } from './credential.ts';

// BIP-340 test vector 0: secret key 3.
const privateKey = '0000000000000000000000000000000000000000000000000000000000000003';
const publicKey = 'f9308a019258c31049344f85f89d5229b531c845836f99b08601f113bce036f9';
const policy = connectionPolicyFor(true);
const adapter = createNostrAdapter({ timeoutMs: 2_000, userHosts: policy });

/** The real relay (khatru), which honours NIP-09 deletion requests by deleting the author's events. */
let relay: RunningNostrRelay;

beforeAll(async () => {
  relay = await startNostrRelay();
});

afterAll(async () => {
  await relay.close();
});

const channelOn = (relays: string[]) =>
  ({ channelId: 'c1', accessToken: encodeNostrCredential({ mode: 'key', privateKey, relays }), instanceUrl: null });

describe('removing Nostr notes with a NIP-09 deletion request', () => {
  it('sends a signed kind 5 naming the note, and the real relay drops the note', async () => {
    const channel = channelOn([relay.url]);
    const published = await adapter.publish({
      channel, content: 'soon gone', media: [], settings: {}, idempotencyKey: 'sps-post-gone',
      dueAt: new Date(), checkpoint: memoryCheckpoint(),
    });
    expect(await eventsOnRelay(relay.url, { ids: [published.releaseId] })).toHaveLength(1);

    await adapter.remove?.(channel, { releaseId: published.releaseId, settings: {} });
    expect(await eventsOnRelay(relay.url, { ids: [published.releaseId] })).toEqual([]);
    const requests = await eventsOnRelay(relay.url, { kinds: [5], authors: [publicKey] });
    expect(requests.map((request) => request.tags)).toContainEqual([['e', published.releaseId], ['k', '1']]);
  });

  it('fails as retryable when no relay can be reached, and refuses what is not a note id', async () => {
    const nowhere = channelOn(['ws://127.0.0.1:9']);
    const unreachable = await adapter.remove?.(nowhere, { releaseId: 'a'.repeat(64), settings: {} })
      .catch((error: unknown) => error);
    expect(unreachable).toBeInstanceOf(PlatformError);
    expect((unreachable as PlatformError).kind).toBe('retryable');
    const refused = await adapter.remove?.(channelOn([relay.url]), { releaseId: 'not-an-id', settings: {} })
      .catch((error: unknown) => error);
    expect((refused as PlatformError).kind).toBe('permanent');
  });
});
