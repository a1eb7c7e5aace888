import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  relayEvent,
  startNostrRelaySimulator,
  type NostrRelaySimulator,
} from '../../../test/simulators/nostr/nostr-relay-simulator.ts';
import { connectionPolicyFor, type ConnectionPolicy } from '../../net/connection-policy.ts';
import type { ConnectContext } from '../kit/platform-connect.ts';
import { nostrConnect } from './connect.ts';
import { readNostrCredential } from './credential.ts';
import { platformFailure, testConnectContext } from '../../../test/simulators/kit/connect-context.ts';
import { closedOrigin } from '../../../test/support/free-port.ts';

function contextWith(userHosts: ConnectionPolicy, timeoutMs = 5_000): ConnectContext {
  return testConnectContext({ apiUrl: 'https://unused.invalid', userHosts, timeoutMs });
}

// BIP-340 test vector 0: secret key 3.
const privateKey = '0000000000000000000000000000000000000000000000000000000000000003';
const publicKey = 'f9308a019258c31049344f85f89d5229b531c845836f99b08601f113bce036f9';
const context = contextWith(connectionPolicyFor(true));

let older: NostrRelaySimulator;
let newer: NostrRelaySimulator;
let empty: NostrRelaySimulator;
let silent: NostrRelaySimulator;
let forging: NostrRelaySimulator;

beforeAll(async () => {
  [older, newer, empty, silent, forging] = await Promise.all([
    startNostrRelaySimulator(),
    startNostrRelaySimulator(),
    startNostrRelaySimulator(),
    startNostrRelaySimulator({ silent: true }),
    startNostrRelaySimulator(),
  ]);
  const profile = (createdAt: number, content: object) =>
    relayEvent(privateKey, {
      created_at: createdAt,
      kind: 0,
      tags: [],
      content: JSON.stringify(content),
    });
  older.addEvent(profile(1_700_000_000, { name: 'old name' }));
  older.addEvent(relayEvent(privateKey, { created_at: 1_800_000_000, kind: 1, tags: [], content: 'a note' }));
  const alice = { name: 'alice', display_name: 'Alice', picture: 'https://example.org/a.png' };
  newer.addEvent(profile(1_750_000_000, alice));
  // A relay can hand back anything: an event whose id does not match its content must be ignored.
  forging.addEvent({ ...profile(1_760_000_000, { name: 'forged' }), content: JSON.stringify({ name: 'tampered' }) });
  // Nor one whose id is right but whose signature is not the key's (here: another event's).
  const unsigned = profile(1_770_000_000, { name: 'unsigned', display_name: 'Not Alice' });
  forging.addEvent({ ...unsigned, sig: profile(1_770_000_001, { name: 'other' }).sig });
});

afterAll(async () => {
  await Promise.all([older, newer, empty, silent, forging].map((relay) => relay.close()));
});

describe('nostr connect', () => {
  it('derives the public key and reads the newest profile any relay has', async () => {
    const relays = `${older.url}\n${newer.url}/\n\n${older.url} ${forging.url}`;
    const account = await nostrConnect.verify({ privateKey, relays }, context);
    expect(account).toMatchObject({
      accountId: publicKey,
      name: 'Alice',
      picture: 'https://example.org/a.png',
      instanceUrl: null,
      refreshToken: null,
      expiresAt: null,
    });
    expect(account.username).toMatch(/^npub1/);
    const saved = readNostrCredential(account.accessToken);
    expect(saved).toEqual({ mode: 'key', privateKey, relays: [older.url, newer.url, forging.url] });
    const request = older.received.messages.find((message) => Array.isArray(message) && message[0] === 'REQ');
    expect(request).toEqual(['REQ', expect.any(String), { kinds: [0], authors: [publicKey], limit: 1 }]);
    expect(older.received.unmaskedFrames).toBe(0);
  });

  it('names the account after its npub when the relays have no profile', async () => {
    const account = await nostrConnect.verify(
      { privateKey, relays: `${empty.url}\n${await closedOrigin('ws')}` },
      context,
    );
    expect(account.name).toMatch(/^npub1[a-z0-9]{7}…[a-z0-9]{4}$/);
    expect(account.picture).toBeNull();
  });

  it('refuses a key that is not one, with the reason', async () => {
    const error = await platformFailure(
      nostrConnect.verify({ privateKey: 'nsec1notakey', relays: empty.url }, context),
    );
    expect(error.message).toContain('nsec1... key or 64 hex characters');
    expect(error.kind).toBe('permanent');
  });

  it('is retryable when no relay answers in time', async () => {
    const quick = contextWith(connectionPolicyFor(true), 300);
    const relays = `${silent.url}\n${await closedOrigin('ws')}`;
    const error = await platformFailure(nostrConnect.verify({ privateKey, relays }, quick));
    expect(error.kind).toBe('retryable');
    expect(error.message).toContain('none of the relays answered');
  });

  it('refuses ws:// unless allowed and private relays under the public-only policy', async () => {
    const before = empty.received.messages.length;
    const publicOnly = contextWith(connectionPolicyFor(false));
    const plain = await platformFailure(nostrConnect.verify({ privateKey, relays: empty.url }, publicOnly));
    expect(plain.message).toContain('relays start with wss://');
    const publicOverPlain = contextWith({ ...connectionPolicyFor(false), allowHttp: true });
    const literal = await platformFailure(nostrConnect.verify({ privateKey, relays: empty.url }, publicOverPlain));
    expect(literal.message).toContain('may not be fetched');
    const named = empty.url.replace('127.0.0.1', 'localhost');
    const byName = await platformFailure(nostrConnect.verify({ privateKey, relays: named }, publicOverPlain));
    expect(byName.kind).toBe('retryable');
    expect(empty.received.messages.length).toBe(before);
  });

  it('refuses a relay list that is not one', async () => {
    const error = await platformFailure(
      nostrConnect.verify({ privateKey, relays: 'https://relay.example.com' }, context),
    );
    expect(error.message).toContain('relays start with wss://');
  });
});
