import { describe, expect, it } from 'vitest';
import { PlatformError } from '../kit/platform-error.ts';
import { readNostrCredential } from './credential.ts';

const key = '0000000000000000000000000000000000000000000000000000000000000003';

describe('nostr credential', () => {
  it('reads a token saved before remote signing as a key credential', () => {
    const legacy = JSON.stringify({ privateKey: key, relays: ['wss://relay.damus.io'] });
    expect(readNostrCredential(legacy)).toEqual({ mode: 'key', privateKey: key, relays: ['wss://relay.damus.io'] });
  });

  it('asks for a new connection when a bunker credential lacks its client key', () => {
    const broken = JSON.stringify({
      mode: 'bunker',
      remoteSignerPubkey: key,
      userPubkey: key,
      relays: ['wss://a.example'],
    });
    expect(() => readNostrCredential(broken)).toThrow(PlatformError);
    expect(() => readNostrCredential(broken)).toThrow('connect the key or the remote signer again');
  });
});
