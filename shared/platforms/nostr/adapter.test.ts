import { memoryCheckpoint } from '../../../test/support/part-checkpoint.ts';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  relayEvent,
  startNostrRelaySimulator,
  type NostrRelaySimulator,
  type RelayEvent,
} from '../../../test/simulators/nostr/nostr-relay-simulator.ts';
import { startNostrRemoteSigner } from '../../../test/simulators/nostr/nostr-remote-signer-simulator.ts';
import { eventFault } from '../../../test/simulators/nostr/nostr-signing.ts';
import { platformFailure, testConnectContext } from '../../../test/simulators/kit/connect-context.ts';
import { closedOrigin } from '../../../test/support/free-port.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import type { ChannelCredentials, PublishInput } from '../kit/platform-adapter.ts';
import { platformModuleProblems } from '../check-platform-modules.ts';
import { createNostrAdapter } from './adapter.ts';
import { bech32Decode } from './bech32.ts';
import { nostrConnect } from './connect.ts';
import { encodeNostrCredential } from './credential.ts';
import { npubOf } from './keys.ts';
import { nostrModule } from './module.ts';

// BIP-340 test vector 0: secret key 3.
const privateKey = '0000000000000000000000000000000000000000000000000000000000000003';
const publicKey = 'f9308a019258c31049344f85f89d5229b531c845836f99b08601f113bce036f9';
const policy = connectionPolicyFor(true);
const adapter = createNostrAdapter({ timeoutMs: 1_000, userHosts: policy });
const dueAt = new Date('2026-11-30T12:00:00.400Z');

let relayA: NostrRelaySimulator;
let relayB: NostrRelaySimulator;

beforeAll(async () => {
  [relayA, relayB] = await Promise.all([startNostrRelaySimulator(), startNostrRelaySimulator()]);
});

afterAll(async () => {
  await Promise.all([relayA, relayB].map((relay) => relay.close()));
});

function channelOn(relays: string[]): ChannelCredentials {
  const accessToken = encodeNostrCredential({ mode: 'key', privateKey, relays });
  return { channelId: 'c1', accessToken, instanceUrl: null };
}

function input(channel: ChannelCredentials, content: string, extra: Partial<PublishInput> = {}): PublishInput {
  const checkpoint = memoryCheckpoint();
  const idempotencyKey = `sps-post-${content}`;
  return { channel, content, media: [], settings: {}, idempotencyKey, dueAt, checkpoint, ...extra };
}

const storedWith = (relay: NostrRelaySimulator, content: string): RelayEvent[] =>
  relay.stored().filter((event) => event.content === content);

/** The TLV entries of the nevent a release URL ends with. */
function neventEntries(url: string): Map<number, Buffer> {
  const [, nevent = ''] = /^https:\/\/njump\.me\/(nevent1[0-9a-z]+)$/.exec(url) ?? [];
  const bytes = Buffer.from(bech32Decode('nevent', nevent) ?? []);
  const entries = new Map<number, Buffer>();
  for (let offset = 0; offset + 2 <= bytes.length;) {
    const length = bytes.readUInt8(offset + 1);
    entries.set(bytes.readUInt8(offset), bytes.subarray(offset + 2, offset + 2 + length));
    offset += 2 + length;
  }
  return entries;
}

describe('Nostr adapter against relay simulators', () => {
  it('publishes a signed kind 1 note dated at the part\'s due time, and links it through njump', async () => {
    const result = await adapter.publish(input(channelOn([relayA.url, relayB.url]), 'hello nostr'));
    const [note] = storedWith(relayA, 'hello nostr');
    expect(note).toMatchObject({ kind: 1, pubkey: publicKey, tags: [], created_at: 1_796_040_000 });
    if (note === undefined) throw new Error('relay A holds no note');
    expect(eventFault(note)).toBeNull();
    expect(storedWith(relayB, 'hello nostr')).toEqual([note]);
    expect(result.releaseId).toBe(note.id);
    const entries = neventEntries(result.releaseURL);
    expect(entries.get(0)?.toString('hex')).toBe(note.id);
    expect(entries.get(1)?.toString('utf8')).toBe(relayA.url);
    expect(entries.get(2)?.toString('hex')).toBe(publicKey);
    expect(entries.get(3)?.readUInt32BE(0)).toBe(1);
  });

  it('builds the same note on a retry, which relays acknowledge as a duplicate and keep once', async () => {
    const channel = channelOn([relayA.url]);
    const first = await adapter.publish(input(channel, 'said once'));
    const again = await adapter.publish(input(channel, 'said once'));
    expect(again.releaseId).toBe(first.releaseId);
    expect(relayA.eventsSentWithId(first.releaseId)).toBe(2);
    expect(storedWith(relayA, 'said once')).toHaveLength(1);
  });

  it('is retryable when the relay took the note but dropped the link before OK; a retry keeps one copy', async () => {
    const channel = channelOn([relayA.url]);
    relayA.failNext('accept-then-drop');
    const lost = await platformFailure(adapter.publish(input(channel, 'answer lost')));
    expect(lost.kind).toBe('retryable');
    expect(lost.message).toBe('no relay accepted the note: could not reach 1 of 1 relays');
    expect(storedWith(relayA, 'answer lost')).toHaveLength(1);

    const retried = await adapter.publish(input(channel, 'answer lost'));
    expect(storedWith(relayA, 'answer lost')).toEqual([expect.objectContaining({ id: retried.releaseId })]);
  });

  it('counts as published when one relay accepts while another refuses', async () => {
    relayA.failNext({ refuse: 'blocked: not on the allow list' });
    const result = await adapter.publish(input(channelOn([relayA.url, relayB.url]), 'one of two'));
    expect(storedWith(relayA, 'one of two')).toHaveLength(0);
    expect(storedWith(relayB, 'one of two')).toEqual([expect.objectContaining({ id: result.releaseId })]);
    expect(neventEntries(result.releaseURL).get(1)?.toString('utf8')).toBe(relayB.url);
  });

  it('fails for good with the relays\' words when all refuse, retries when one asks to slow down', async () => {
    const channel = channelOn([relayA.url, relayB.url]);
    relayA.failNext({ refuse: 'blocked: spam' });
    relayB.failNext({ refuse: 'restricted: paid relay' });
    const refused = await platformFailure(adapter.publish(input(channel, 'refused everywhere')));
    expect(refused.kind).toBe('permanent');
    expect(refused.message).toBe(
      `every relay refused the note: ${relayA.url}: blocked: spam; ${relayB.url}: restricted: paid relay`,
    );

    relayA.failNext({ refuse: 'rate-limited: slow down' });
    relayB.failNext({ refuse: 'blocked: spam' });
    const throttled = await platformFailure(adapter.publish(input(channel, 'throttled')));
    expect(throttled.kind).toBe('retryable');
    expect(throttled.retryAfterMs).toBeNull();
    expect(throttled.message).toContain('rate-limited: slow down');
  });

  it('is retryable when no relay can be reached, without naming why', async () => {
    const closed = await closedOrigin('ws');
    relayA.failNext('drop');
    const failure = await platformFailure(adapter.publish(input(channelOn([closed, relayA.url]), 'nowhere')));
    expect(failure.kind).toBe('retryable');
    expect(failure.message).toBe('no relay accepted the note: could not reach 2 of 2 relays');
    expect(failure.message).not.toMatch(/ECONNREFUSED/);
    expect(storedWith(relayA, 'nowhere')).toHaveLength(0);
  });

  it('threads replies with NIP-10 marked e tags: the root, then the root and the parent', async () => {
    const channel = channelOn([relayA.url, relayB.url]);
    const root = await adapter.publish(input(channel, 'thread 1/3'));
    const second = await adapter.comment({ ...input(channel, 'thread 2/3'), parentReleaseId: root.releaseId });
    const third = await adapter.comment({ ...input(channel, 'thread 3/3'), parentReleaseId: second.releaseId });
    const [secondNote] = storedWith(relayB, 'thread 2/3');
    const [thirdNote] = storedWith(relayB, 'thread 3/3');
    expect(secondNote?.id).toBe(second.releaseId);
    expect(secondNote?.tags).toEqual([['e', root.releaseId, relayA.url, 'root', publicKey], ['p', publicKey]]);
    expect(thirdNote?.id).toBe(third.releaseId);
    expect(thirdNote?.tags).toEqual([
      ['e', root.releaseId, relayA.url, 'root', publicKey],
      ['e', second.releaseId, relayA.url, 'reply', publicKey],
      ['p', publicKey],
    ]);
    // A retried reply is the same note.
    const again = await adapter.comment({ ...input(channel, 'thread 3/3'), parentReleaseId: second.releaseId });
    expect(again.releaseId).toBe(third.releaseId);
  });

  it('does not guess the root of a reply whose parent no relay has: it retries', async () => {
    const missing = 'ab'.repeat(32);
    const orphan = { ...input(channelOn([relayA.url]), 'orphan'), parentReleaseId: missing };
    const failure = await platformFailure(adapter.comment(orphan));
    expect(failure.kind).toBe('retryable');
    expect(failure.message).toBe(`none of the relays has the note this part answers (${missing}) yet`);
    expect(storedWith(relayA, 'orphan')).toHaveLength(0);
  });

  it('links attached files by their public URLs after the text, with NIP-92 imeta tags', async () => {
    const file = (url: string, mimeType: string, alt: string | null) => ({
      kind: mimeType.startsWith('video/') ? 'video' as const : 'image' as const, mimeType, size: 1,
      fileName: 'a', alt, url, open: () => Promise.resolve(Readable.from([Buffer.from([0])])),
    });
    const media = [
      file('https://media.example/2026/11/25/a.png', 'image/png', 'A test card'),
      file('https://media.example/2026/11/25/b.mp4', 'video/mp4', null),
    ];
    await adapter.publish(input(channelOn([relayA.url]), 'with media', { media }));
    const [note] = relayA.stored().filter((event) => event.content.startsWith('with media'));
    const urls = media.map((item) => item.url);
    expect(note?.content).toBe(['with media', ...urls].join('\n'));
    expect(note?.tags).toEqual([
      ['imeta', 'url https://media.example/2026/11/25/a.png', 'm image/png', 'alt A test card'],
      ['imeta', 'url https://media.example/2026/11/25/b.mp4', 'm video/mp4'],
    ]);
  });

  it('lists the account\'s latest notes, newest first, for picking a lost release', async () => {
    const relay = await startNostrRelaySimulator();
    try {
      for (let index = 0; index < 22; index += 1) {
        const note = { created_at: 1_700_000_000 + index, kind: 1, tags: [], content: `n${String(index)}` };
        relay.addEvent(relayEvent(privateKey, note));
      }
      relay.addEvent(relayEvent(privateKey, { created_at: 1_800_000_000, kind: 0, tags: [], content: '{}' }));
      const recent = await adapter.recentContent(channelOn([relay.url]));
      expect(recent).toHaveLength(20);
      const newest = relay.stored().find((event) => event.content === 'n21');
      expect(recent[0]?.id).toBe(newest?.id);
      expect(neventEntries(recent[0]?.url ?? '').get(0)?.toString('hex')).toBe(newest?.id);
      const request = relay.received.messages.find((message) => Array.isArray(message) && message[0] === 'REQ');
      expect(request).toEqual(['REQ', expect.any(String), { kinds: [1], authors: [publicKey], limit: 20 }]);
    } finally {
      await relay.close();
    }
  });

  it('is retryable when no relay answers a read', async () => {
    const failure = await platformFailure(adapter.recentContent(channelOn([await closedOrigin('ws')])));
    expect(failure.kind).toBe('retryable');
    expect(failure.message).toBe('none of the relays answered while reading recent notes');
  });
});

describe('Nostr adapter through a remote signer', () => {
  const userSecretKey = 'b7e151628aed2a6abf7158809cf4f3c762e7160f38b4da56a784d9045190cfef';
  const userPubkey = 'dff1d77f2a671c5f36183726db2341be58feae1da2deced843240f7b502ba659';
  const context = testConnectContext({ apiUrl: 'https://unused.invalid', userHosts: policy });

  async function bunkerChannel(
    signerRelay: NostrRelaySimulator,
    behaviour: 'answer' | 'alter',
  ): Promise<ChannelCredentials> {
    const signer = startNostrRemoteSigner({ relays: [signerRelay], userSecretKey, behaviour });
    const account = await nostrConnect.verify({ bunker: signer.bunkerUrl, relays: relayB.url }, context);
    return { channelId: 'c2', accessToken: account.accessToken, instanceUrl: null };
  }

  it('asks the signer to sign the note and publishes what it signed', async () => {
    const signerRelay = await startNostrRelaySimulator();
    try {
      const channel = await bunkerChannel(signerRelay, 'answer');
      const result = await adapter.publish(input(channel, 'signed remotely'));
      const [note] = storedWith(relayB, 'signed remotely');
      expect(note).toMatchObject({ id: result.releaseId, pubkey: userPubkey, created_at: 1_796_040_000 });
      expect(neventEntries(result.releaseURL).get(2)?.toString('hex')).toBe(userPubkey);
    } finally {
      await signerRelay.close();
    }
  });

  it('refuses a signed note that is not the one asked for', async () => {
    const signerRelay = await startNostrRelaySimulator();
    try {
      const channel = await bunkerChannel(signerRelay, 'alter');
      const failure = await platformFailure(adapter.publish(input(channel, 'altered')));
      expect(failure.kind).toBe('permanent');
      expect(failure.message).toBe('the remote signer returned a note other than the one SPS asked it to sign');
      expect(storedWith(relayB, 'altered')).toHaveLength(0);
    } finally {
      await signerRelay.close();
    }
  });
});

describe('Nostr tools', () => {
  it('implements exactly the tools the definition declares', () => {
    expect(platformModuleProblems([nostrModule], new Map([['nostr', adapter]]))).toEqual([]);
  });

  it('relays: the relays SPS writes to and the account\'s published relay list', async () => {
    const relay = await startNostrRelaySimulator();
    try {
      const channel = channelOn([relay.url]);
      const none = { publishTo: [relay.url], signerRelays: [], relayList: null };
      expect(await adapter.tools.relays?.(channel, {})).toEqual(none);
      const tags = [
        ['r', 'wss://both.example'], ['r', 'wss://in.example', 'read'], ['r', 'wss://out.example', 'write'],
      ];
      relay.addEvent(relayEvent(privateKey, { created_at: 1_780_000_000, kind: 10002, tags, content: '' }));
      expect(await adapter.tools.relays?.(channel, {})).toEqual({
        publishTo: [relay.url],
        signerRelays: [],
        relayList: {
          updatedAt: new Date(1_780_000_000_000).toISOString(),
          relays: [
            { url: 'wss://both.example', read: true, write: true },
            { url: 'wss://in.example', read: true, write: false },
            { url: 'wss://out.example', read: false, write: true },
          ],
        },
      });
    } finally {
      await relay.close();
    }
  });

  it('relayLimits: reads the relay\'s NIP-11 document', async () => {
    const relay = await startNostrRelaySimulator({
      information: {
        name: 'paid relay',
        supported_nips: [1, 11, 42],
        limitation: {
          max_content_length: 4000, auth_required: true, payment_required: true, created_at_lower_limit: 94608000,
        },
      },
    });
    try {
      expect(await adapter.tools.relayLimits?.(channelOn([relayA.url]), { relay: relay.url })).toEqual({
        relay: relay.url,
        name: 'paid relay',
        description: null,
        software: null,
        version: null,
        supportedNips: [1, 11, 42],
        maxMessageLength: null,
        maxContentLength: 4000,
        maxEventTags: null,
        authRequired: true,
        paymentRequired: true,
        restrictedWrites: false,
        createdAtLowerLimit: 94608000,
        createdAtUpperLimit: null,
      });
      const limitsOf = (relayUrl: string, using = adapter) =>
        using.tools.relayLimits?.(channelOn([relayA.url]), { relay: relayUrl }) ?? Promise.resolve();
      const wrong = await platformFailure(limitsOf('https://x.example'));
      expect(wrong.kind).toBe('permanent');
      const strict = createNostrAdapter({ timeoutMs: 1_000, userHosts: connectionPolicyFor(false) });
      const privateRelay = await platformFailure(limitsOf('wss://127.0.0.1', strict));
      expect(privateRelay.kind).toBe('permanent');
    } finally {
      await relay.close();
    }
  });

  it('profile: the latest kind 0 of a key given as npub or hex', async () => {
    const relay = await startNostrRelaySimulator();
    try {
      const content = JSON.stringify({ name: 'three', display_name: 'Three', nip05: 'three@example.org', about: 'hi' });
      const old = { created_at: 1_760_000_000, kind: 0, tags: [], content: '{"name":"old"}' };
      relay.addEvent(relayEvent(privateKey, old));
      relay.addEvent(relayEvent(privateKey, { created_at: 1_770_000_000, kind: 0, tags: [], content }));
      const channel = channelOn([relay.url]);
      const expected = {
        pubkey: publicKey, npub: npubOf(publicKey), found: true, name: 'three', displayName: 'Three', picture: null,
        about: 'hi', nip05: 'three@example.org', website: null, updatedAt: new Date(1_770_000_000_000).toISOString(),
      };
      expect(await adapter.tools.profile?.(channel, { pubkey: npubOf(publicKey) })).toEqual(expected);
      expect(await adapter.tools.profile?.(channel, { pubkey: publicKey.toUpperCase() })).toEqual(expected);
      const unknown = await adapter.tools.profile?.(channel, { pubkey: 'cd'.repeat(32) });
      expect(unknown).toMatchObject({ found: false, name: null, updatedAt: null });
      const bad = await platformFailure(adapter.tools.profile?.(channel, { pubkey: 'nsec1nope' }) ?? Promise.resolve());
      expect(bad.message).toBe('pubkey must be an npub1... key or 64 hex characters');
    } finally {
      await relay.close();
    }
  });
});
