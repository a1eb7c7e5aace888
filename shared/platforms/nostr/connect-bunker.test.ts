import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  relayEvent,
  startNostrRelaySimulator,
  type NostrRelaySimulator,
} from '../../../test/simulators/nostr/nostr-relay-simulator.ts';
import { startNostrRemoteSigner } from '../../../test/simulators/nostr/nostr-remote-signer-simulator.ts';
import { platformFailure, testConnectContext } from '../../../test/simulators/kit/connect-context.ts';
import { closedOrigin } from '../../../test/support/free-port.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import { nostrConnect } from './connect.ts';
import { readNostrCredential } from './credential.ts';
import { nostrKeysFrom } from './keys.ts';
import { bunkerPointerFrom, openRemoteSigner } from './remote-signer.ts';

const context = testConnectContext({ apiUrl: 'https://unused.invalid', userHosts: connectionPolicyFor(true) });
const quick = testConnectContext({
  apiUrl: 'https://unused.invalid',
  userHosts: connectionPolicyFor(true),
  timeoutMs: 300,
});

// BIP-340 test vector 1's secret key: the user's key, which only the signer holds.
const userSecretKey = 'b7e151628aed2a6abf7158809cf4f3c762e7160f38b4da56a784d9045190cfef';
const userPubkey = 'dff1d77f2a671c5f36183726db2341be58feae1da2deced843240f7b502ba659';

let signerRelay: NostrRelaySimulator;
let otherSignerRelay: NostrRelaySimulator;
let profileRelay: NostrRelaySimulator;

beforeAll(async () => {
  [signerRelay, otherSignerRelay, profileRelay] = await Promise.all([
    startNostrRelaySimulator(),
    startNostrRelaySimulator(),
    startNostrRelaySimulator(),
  ]);
  const content = JSON.stringify({ name: 'alice', display_name: 'Alice', picture: 'https://example.org/a.png' });
  profileRelay.addEvent(relayEvent(userSecretKey, { created_at: 1_750_000_000, kind: 0, tags: [], content }));
});

afterAll(async () => {
  await Promise.all([signerRelay, otherSignerRelay, profileRelay].map((relay) => relay.close()));
});

describe('nostr connect through a remote signer (NIP-46)', () => {
  it("asks the signer for the user's key, reads the profile, and keeps a client key the signer knows", async () => {
    const signer = startNostrRemoteSigner({
      relays: [signerRelay, otherSignerRelay],
      userSecretKey,
      secret: 'open-sesame',
    });
    expect(nostrKeysFrom(userSecretKey).publicKey).toBe(userPubkey);
    expect(signer.remoteSignerPubkey).not.toBe(userPubkey);

    const account = await nostrConnect.verify({ bunker: signer.bunkerUrl, relays: profileRelay.url }, context);

    expect(account).toMatchObject({ accountId: userPubkey, name: 'Alice', picture: 'https://example.org/a.png' });
    expect(signer.requests.map(({ method, params }) => [method, params])).toEqual([
      ['connect', [signer.remoteSignerPubkey, 'open-sesame']],
      ['get_public_key', []],
    ]);
    const saved = readNostrCredential(account.accessToken);
    expect(saved).toEqual({
      mode: 'bunker',
      clientSecretKey: expect.stringMatching(/^[0-9a-f]{64}$/) as unknown,
      remoteSignerPubkey: signer.remoteSignerPubkey,
      userPubkey,
      relays: [profileRelay.url],
      signerRelays: [signerRelay.url, otherSignerRelay.url],
      secret: 'open-sesame',
    });
    if (saved.mode !== 'bunker') throw new Error('expected a bunker credential');
    const client = nostrKeysFrom(saved.clientSecretKey);
    expect(signer.requests[0]?.client).toBe(client.publicKey);

    // What went over the relay was sealed: the method names are not readable there.
    const published = signerRelay.received.messages.filter(
      (message) => Array.isArray(message) && message[0] === 'EVENT',
    );
    expect(published.length).toBe(2);
    expect(JSON.stringify(published)).not.toContain('get_public_key');

    // Publishing later: the stored client key alone gets a note signed as the user.
    const session = openRemoteSigner(bunkerPointerFrom(signer.bunkerUrl, context.userHosts), client, context);
    const template = { kind: 1, created_at: 1_760_000_000, tags: [], content: 'hello from SPS' };
    const note = JSON.parse(await session.request('sign_event', [JSON.stringify(template)])) as Record<
      string,
      unknown
    >;
    session.close();
    expect(note).toMatchObject({ ...template, pubkey: userPubkey });
  });

  it("refuses with the signer's words when the secret is wrong", async () => {
    const signer = startNostrRemoteSigner({ relays: [signerRelay], userSecretKey, secret: 'open-sesame' });
    const bunker = signer.bunkerUrl.replace('open-sesame', 'guess');
    const error = await platformFailure(nostrConnect.verify({ bunker, relays: profileRelay.url }, context));
    expect(error.kind).toBe('permanent');
    expect(error.message).toBe('the remote signer refused: invalid secret');
    expect(signer.requests.map(({ method }) => method)).toEqual(['connect']);
  });

  it("refuses with the signer's words when the user declines", async () => {
    const signer = startNostrRemoteSigner({
      relays: [signerRelay],
      userSecretKey,
      behaviour: 'refuse',
      refusal: 'the user declined SPS',
    });
    const error = await platformFailure(
      nostrConnect.verify({ bunker: signer.bunkerUrl, relays: profileRelay.url }, context),
    );
    expect(error.kind).toBe('permanent');
    expect(error.message).toContain('the user declined SPS');
  });

  it('is retryable when the signer stays silent or its relays cannot be reached', async () => {
    const signer = startNostrRemoteSigner({ relays: [signerRelay], userSecretKey, behaviour: 'silent' });
    const silent = await platformFailure(
      nostrConnect.verify({ bunker: signer.bunkerUrl, relays: profileRelay.url }, quick),
    );
    expect(silent.kind).toBe('retryable');
    expect(silent.message).toContain('the remote signer did not answer within 300 ms');
    expect(signer.requests.map(({ method }) => method)).toEqual(['connect']);

    const closed = await closedOrigin('ws');
    const nowhere = signer.bunkerUrl.replace(encodeURIComponent(signerRelay.url), encodeURIComponent(closed));
    const unreachable = await platformFailure(
      nostrConnect.verify({ bunker: nowhere, relays: profileRelay.url }, context),
    );
    expect(unreachable.kind).toBe('retryable');
    expect(unreachable.message).toContain("could not reach the remote signer's relays");
  });

  it("passes on the relays' refusal to carry the request", async () => {
    const refusing = await startNostrRelaySimulator({ refuseEventsWith: 'blocked: kind 24133 is not welcome here' });
    try {
      const signer = startNostrRemoteSigner({ relays: [refusing], userSecretKey });
      const error = await platformFailure(
        nostrConnect.verify({ bunker: signer.bunkerUrl, relays: profileRelay.url }, context),
      );
      expect(error.kind).toBe('permanent');
      expect(error.message).toBe(
        "the remote signer's relays refused to carry the request: blocked: kind 24133 is not welcome here",
      );
      expect(signer.requests).toEqual([]);
    } finally {
      await refusing.close();
    }
  });

  it('refuses a bunker URL that is not one, and asks for exactly one of key and bunker', async () => {
    const key = '0000000000000000000000000000000000000000000000000000000000000003';
    const pubkey = 'f9308a019258c31049344f85f89d5229b531c845836f99b08601f113bce036f9';
    const relays = profileRelay.url;
    const cases: [Record<string, string>, string][] = [
      [{ bunker: 'https://nsec.app/connect', relays }, 'this is not a bunker URL'],
      [{ bunker: 'bunker://npub1abc?relay=wss://relay.example.com', relays }, '64 hex characters'],
      [{ bunker: `bunker://${pubkey}`, relays }, 'the bunker URL names no relay'],
      [{ bunker: `bunker://${pubkey}?relay=https://relay.example.com`, relays }, 'relays start with wss://'],
      [{ privateKey: key, bunker: `bunker://${pubkey}?relay=${signerRelay.url}`, relays }, 'not both'],
      [{ privateKey: ' ', bunker: '', relays }, 'your private key (nsec) or the bunker:// URL'],
      [{ privateKey: `bunker://${pubkey}?relay=${signerRelay.url}`, relays }, 'paste it in the remote signer field'],
    ];
    for (const [values, message] of cases) {
      const error = await platformFailure(nostrConnect.verify(values, context));
      expect(error.kind).toBe('permanent');
      expect(error.message).toContain(message);
    }
  });
});
