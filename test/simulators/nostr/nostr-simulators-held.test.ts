import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { takeOffDescription } from '../kit/conformance-log.ts';
import { startNostrRelaySimulator, type NostrRelaySimulator } from './nostr-relay-simulator.ts';
import { startNostrRemoteSigner } from './nostr-remote-signer-simulator.ts';
import { conversation, eventId, publicKeyOf, signedEvent } from './nostr-signing.ts';

/**
 * The relay and remote signer simulators held to operations.json: what a relay or signer would not
 * take is refused in the relay's own messages (OK false, CLOSED, NOTICE) or the signer's error, and
 * a message of theirs off the description is recorded, so the test that caused it fails.
 */
const secretKey = '0000000000000000000000000000000000000000000000000000000000000003';
const note = signedEvent(secretKey, { created_at: 1_800_000_000, kind: 1, tags: [], content: 'held' });

/** One WebSocket to a relay: send messages, wait for the first one matching. */
async function openSession(url: string) {
  const socket = new WebSocket(url);
  const messages: unknown[][] = [];
  const waiting: { match: (message: unknown[]) => boolean; resolve: (message: unknown[]) => void }[] = [];
  socket.addEventListener('message', (received) => {
    const message = JSON.parse(String(received.data)) as unknown[];
    messages.push(message);
    const found = waiting.findIndex((entry) => entry.match(message));
    if (found >= 0) waiting.splice(found, 1)[0]?.resolve(message);
  });
  await new Promise((resolve, reject) => {
    socket.addEventListener('open', resolve);
    socket.addEventListener('error', reject);
  });
  return {
    send: (message: unknown) => { socket.send(typeof message === 'string' ? message : JSON.stringify(message)); },
    next: (type: string) => new Promise<unknown[]>((resolve) => {
      const match = (message: unknown[]) => message[0] === type;
      const seen = messages.find(match);
      if (seen === undefined) waiting.push({ match, resolve });
      else resolve(seen);
    }),
    close: () => { socket.close(); },
  };
}

describe('the relay simulator held to NIP-01', () => {
  let relay: NostrRelaySimulator;

  beforeAll(async () => {
    relay = await startNostrRelaySimulator();
  });

  afterAll(async () => {
    await relay.close();
  });

  it('answers an event with a field NIP-01 does not have OK false "invalid:", and keeps nothing', async () => {
    const session = await openSession(relay.url);
    session.send(['EVENT', { ...note, relay: 'wss://x.example' }]);
    expect(await session.next('OK'))
      .toEqual(['OK', note.id, false, 'invalid: message.1.relay is not a field of the message']);
    session.close();
    expect(relay.stored()).toEqual([]);
  });

  it('verifies the id and the signature, as relays do', async () => {
    const session = await openSession(relay.url);
    const altered = { ...note, content: 'altered' };
    session.send(['EVENT', altered]);
    expect(await session.next('OK')).toEqual(['OK', note.id, false, 'invalid: event id does not match']);
    session.close();
    const other = await openSession(relay.url);
    const forged = { ...altered, id: eventId(altered), sig: note.sig };
    other.send(['EVENT', forged]);
    expect(await other.next('OK')).toEqual(['OK', forged.id, false, 'invalid: bad signature']);
    other.close();
  });

  it('closes a REQ with a filter attribute NIP-01 does not list, and NOTICEs what it cannot read', async () => {
    const session = await openSession(relay.url);
    session.send(['REQ', 'sub-1', { kinds: [1], author: [note.pubkey] }]);
    expect(await session.next('CLOSED'))
      .toEqual(['CLOSED', 'sub-1', 'invalid: message.2 must NOT have additional properties']);
    session.send('{"not": "an array"}');
    expect(await session.next('NOTICE'))
      .toEqual(['NOTICE', 'invalid: a message is a JSON array that starts with its type']);
    session.close();
    const other = await openSession(relay.url);
    other.send(['COUNT', 'sub-2', {}]);
    expect(await other.next('NOTICE')).toEqual(['NOTICE', 'invalid: no COUNT message is described']);
    other.close();
  });

  it('records an answer of its own off the description, which fails the test that caused it', async () => {
    relay.failNext({ refuse: 'not today' });
    const session = await openSession(relay.url);
    session.send(['EVENT', note]);
    expect(await session.next('OK')).toEqual(['OK', note.id, false, 'not today']);
    session.close();
    const recorded = takeOffDescription();
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toMatchObject({ platform: 'nostr', route: 'WS EVENT' });
    expect(recorded[0]?.problems[0]).toMatch(/^OK\.3 must match pattern/);
  });

  it('holds its NIP-11 document to the description too', async () => {
    const odd = await startNostrRelaySimulator({ information: { name: 'odd', supported_nips: ['1'] } });
    try {
      const response = await fetch(odd.url.replace('ws:', 'http:'), { headers: { Accept: 'application/nostr+json' } });
      expect(response.status).toBe(200);
      await response.body?.cancel();
      expect(takeOffDescription()).toEqual([{
        platform: 'nostr', route: 'GET /', status: 200, problems: ['answer 200.supported_nips.0 must be integer'],
      }]);
    } finally {
      await odd.close();
    }
  });
});

describe('the remote signer simulator held to NIP-46', () => {
  let relay: NostrRelaySimulator;
  const userSecretKey = randomBytes(32).toString('hex');
  const clientKey = randomBytes(32).toString('hex');
  const clientPubkey = publicKeyOf(clientKey);

  beforeAll(async () => {
    relay = await startNostrRelaySimulator();
  });

  afterAll(async () => {
    await relay.close();
  });

  /** Sends one request to the signer and returns its decrypted answer. */
  async function ask(signerPubkey: string, request: unknown): Promise<unknown> {
    const channel = conversation(clientKey, signerPubkey);
    const session = await openSession(relay.url);
    session.send(['REQ', 'answers', { 'kinds': [24133], 'authors': [signerPubkey], '#p': [clientPubkey] }]);
    await session.next('EOSE');
    session.send(['EVENT', signedEvent(clientKey, {
      kind: 24133, created_at: Math.floor(Date.now() / 1000), tags: [['p', signerPubkey]],
      content: channel.encrypt(JSON.stringify(request)),
    })]);
    const [, , event] = await session.next('EVENT') as [string, string, { content: string }];
    session.close();
    return JSON.parse(channel.decrypt(event.content) ?? 'null');
  }

  it('answers a request NIP-46 does not describe with an error', async () => {
    const signer = startNostrRemoteSigner({ relays: [relay], userSecretKey });
    const template = { kind: 1, content: 'x', tags: [], created_at: 1_800_000_000, pubkey: clientPubkey };
    expect(await ask(signer.remoteSignerPubkey, { id: 'r1', method: 'sign_event', params: [JSON.stringify(template)] }))
      .toEqual({ id: 'r1', error: 'invalid request: request.params.0.pubkey is not a field' });
    expect(await ask(signer.remoteSignerPubkey, { id: 'r2', method: 'get_relays', params: [] }))
      .toEqual({ id: 'r2', error: 'unsupported method get_relays' });
  });

  it('records an answer of its own off the description', async () => {
    const signer = startNostrRemoteSigner({ relays: [relay], userSecretKey, behaviour: 'refuse', refusal: '' });
    expect(await ask(signer.remoteSignerPubkey, { id: 'r3', method: 'ping', params: [] }))
      .toEqual({ id: 'r3', error: '' });
    expect(takeOffDescription()).toEqual([{
      platform: 'nostr', route: 'RPC ping', status: 101, problems: ['result must have required property \'result\''],
    }]);
  });
});
