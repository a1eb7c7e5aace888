import { describe, expect, it } from 'vitest';
import { MessageCheck } from '../kit/message-check.ts';
import { signedEvent } from './nostr-signing.ts';

// NIP-01's messages and NIP-46's requests as operations.json writes them, checked without a socket.
const check = MessageCheck.forMessages('nostr');
const secretKey = '0000000000000000000000000000000000000000000000000000000000000003';
const note = signedEvent(secretKey, { created_at: 1_800_000_000, kind: 1, tags: [['t', 'sps']], content: 'hello' });
const pubkey = note.pubkey;

describe('the Nostr operations, client to relay', () => {
  it('takes the EVENT, REQ and CLOSE SPS sends', () => {
    for (const [type, ...rest] of [
      ['EVENT', note],
      ['REQ', 'sps-0a1b2c', { kinds: [0], authors: [pubkey], limit: 1 }],
      ['REQ', 'sps-0a1b2c', { 'kinds': [24133], 'authors': [pubkey], '#p': [pubkey] }, { ids: [note.id] }],
      ['CLOSE', 'sps-0a1b2c'],
    ] as const) {
      const verdict = check.checkClientMessage([type, ...rest]);
      expect(verdict.operation?.route).toBe(`WS ${type}`);
      expect(verdict.problems).toEqual([]);
    }
  });

  it('refuses an event with a field NIP-01 does not have, or fields out of their form', () => {
    expect(check.checkClientMessage(['EVENT', { ...note, relay: 'wss://x.example' }]).problems)
      .toEqual(['message.1.relay is not a field of the message']);
    const { problems } = check.checkClientMessage(['EVENT', { ...note, kind: 70000, id: note.id.toUpperCase() }]);
    expect(problems).toContain('message.1.id must match pattern "^[0-9a-f]{64}$"');
    expect(problems).toContain('message.1.kind must be <= 65535');
    expect(check.checkClientMessage(['EVENT', note, 'extra']).problems)
      .toEqual(['message must NOT have more than 2 items']);
  });

  it('refuses a filter attribute NIP-01 does not list, a subscription id over 64 characters, an empty REQ', () => {
    expect(check.checkClientMessage(['REQ', 'sub', { kinds: [1], author: [pubkey] }]).problems)
      .toEqual(['message.2 must NOT have additional properties']);
    expect(check.checkClientMessage(['REQ', 'sub', { '#e': ['not-an-id'] }]).problems)
      .toEqual(['message.2.#e.0 must match pattern "^[0-9a-f]{64}$"']);
    expect(check.checkClientMessage(['REQ', 'x'.repeat(65), {}]).problems)
      .toEqual(['message.1 must NOT have more than 64 characters']);
    expect(check.checkClientMessage(['REQ', 'sub']).problems).toEqual(['message must NOT have fewer than 3 items']);
  });

  it('describes no other message, nor one that is not a typed array', () => {
    expect(check.checkClientMessage(['COUNT', 'sub', {}]))
      .toEqual({ operation: null, problems: ['no COUNT message is described'] });
    expect(check.checkClientMessage({ type: 'EVENT' }).operation).toBeNull();
  });
});

describe('the Nostr operations, relay to client', () => {
  const publishing = check.operation('WS EVENT');
  const querying = check.operation('WS REQ');

  it('takes OK with a NIP-01 or NIP-42 prefix, and an empty message only when accepted', () => {
    expect(check.checkServerMessage(['OK', note.id, true, ''], publishing)).toEqual([]);
    expect(check.checkServerMessage(['OK', note.id, true, 'duplicate: already have this event'], publishing))
      .toEqual([]);
    expect(check.checkServerMessage(['OK', note.id, false, 'auth-required: sign in first'], publishing)).toEqual([]);
    expect(check.checkServerMessage(['OK', note.id, false, 'no prefix'], publishing))
      .toContain('OK.3 must match pattern "^(?:duplicate|pow|blocked|rate-limited|invalid|restricted|mute|error'
        + '|auth-required|unsupported):"');
    expect(check.checkServerMessage(['OK', note.id, false, ''], publishing)).not.toEqual([]);
    expect(check.checkServerMessage(['OK', note.id, 'true', ''], publishing)).toContain('OK.2 must be boolean');
  });

  it('takes only the messages that answer what was sent, and NOTICE or AUTH at any moment', () => {
    expect(check.checkServerMessage(['EVENT', 'sub', note], querying)).toEqual([]);
    expect(check.checkServerMessage(['EOSE', 'sub'], querying)).toEqual([]);
    expect(check.checkServerMessage(['CLOSED', 'sub', 'error: shutting down'], querying)).toEqual([]);
    expect(check.checkServerMessage(['EOSE', 'sub'], publishing))
      .toEqual(['EOSE is not among the answers to WS EVENT']);
    expect(check.checkServerMessage(['NOTICE', 'invalid: could not parse message'], null)).toEqual([]);
    expect(check.checkServerMessage(['AUTH', 'challenge'], null)).toEqual([]);
    expect(check.checkServerMessage(['EVENT', 'sub', { ...note, sig: 'x' }], querying))
      .toEqual(['EVENT.2.sig must match pattern "^[0-9a-f]{128}$"']);
  });
});

describe('the Nostr operations, NIP-46 requests and answers', () => {
  const template = { kind: 1, content: 'hello', tags: [], created_at: 1_800_000_000 };

  it('takes connect, get_public_key, ping and sign_event as SPS sends them', () => {
    for (const [method, params] of [
      ['connect', [pubkey]], ['connect', [pubkey, 'secret']], ['get_public_key', []], ['ping', []],
      ['sign_event', [JSON.stringify(template)]],
    ] as const) {
      const verdict = check.checkCall({ id: 'a1', method, params });
      expect(verdict.operation?.route).toBe(`RPC ${method}`);
      expect(verdict.problems).toEqual([]);
    }
  });

  it('reads the event sign_event carries as JSON, and refuses what NIP-46 does not list', () => {
    const withPubkey = JSON.stringify({ ...template, pubkey });
    expect(check.checkCall({ id: 'a1', method: 'sign_event', params: [withPubkey] }).problems)
      .toEqual(['request.params.0.pubkey is not a field']);
    expect(check.checkCall({ id: 'a1', method: 'sign_event', params: ['{not json'] }).problems)
      .toEqual(['request.params.0 is not JSON']);
    expect(check.checkCall({ id: 'a1', method: 'sign_event', params: [JSON.stringify({ kind: 1 })] }).problems)
      .toContain('request.params.0 must have required property \'content\'');
    expect(check.checkCall({ id: 'a1', method: 'connect', params: ['npub1abc'] }).problems)
      .toEqual(['request.params.0 must match pattern "^[0-9a-f]{64}$"']);
    expect(check.checkCall({ id: 'a1', method: 'ping', params: [], extra: true }).problems)
      .toEqual(['request.extra is not a field of the method']);
    expect(check.checkCall({ id: 'a1', method: 'get_relays', params: [] }).operation).toBeNull();
  });

  it('checks answers: the result each method gives, or an error', () => {
    const signing = check.operation('RPC sign_event');
    expect(check.checkCallAnswer(signing, { id: 'a1', result: JSON.stringify(note) })).toEqual([]);
    expect(check.checkCallAnswer(signing, { id: 'a1', result: JSON.stringify({ ...note, sig: undefined }) }))
      .toEqual(['result.result must have required property \'sig\'']);
    expect(check.checkCallAnswer(signing, { id: 'a1', error: 'the user refused' })).toEqual([]);
    expect(check.checkCallAnswer(signing, { id: 'a1', result: 'auth_url', error: 'https://signer.example/approve' }))
      .toEqual([]);
    const key = check.operation('RPC get_public_key');
    expect(check.checkCallAnswer(key, { id: 'a1', result: pubkey })).toEqual([]);
    expect(check.checkCallAnswer(key, { id: 'a1', result: 'npub1abc' }))
      .toEqual(['result.result must match pattern "^[0-9a-f]{64}$"']);
    expect(check.checkCallAnswer(check.operation('RPC ping'), { id: 'a1', result: 'ok' }))
      .toEqual(['result.result must be equal to constant']);
  });
});
