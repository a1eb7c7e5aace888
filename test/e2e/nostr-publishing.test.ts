import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saveConnectedChannel } from '../../shared/domain/channels/save-connected-channel.ts';
import { createOrganization } from '../../shared/domain/organizations/organizations.ts';
import { connectionPolicyFor } from '../../shared/net/connection-policy.ts';
import { nostrConnect } from '../../shared/platforms/nostr/connect.ts';
import { startNostrRelaySimulator, type NostrRelaySimulator } from '../simulators/nostr/nostr-relay-simulator.ts';
import { eventFault } from '../simulators/nostr/nostr-signing.ts';
import { testConnectContext } from '../simulators/kit/connect-context.ts';
import { useSimulatedStack } from '../support/simulated-stack.ts';
import { publishNow, settledParts } from '../support/publish-now.ts';

// BIP-340 test vector 0: secret key 3.
const privateKey = '0000000000000000000000000000000000000000000000000000000000000003';
const publicKey = 'f9308a019258c31049344f85f89d5229b531c845836f99b08601f113bce036f9';

/**
 * A Nostr thread from POST /posts through the publish worker to two relays, and the crash that
 * exactly once is about: a relay stores the note but the connection breaks before its OK, the job
 * retries, and the relay still holds one copy, because the retry rebuilds the same note id.
 */
describe('publishing to Nostr end to end', () => {
  // Retries wait over a second, so a note dated from the clock instead of the part would get a new id.
  const world = useSimulatedStack({ overrides: { PUBLISH_ATTEMPTS: '5', PUBLISH_BACKOFF_MS: '1100' } });
  let first: NostrRelaySimulator;
  let second: NostrRelaySimulator;

  beforeAll(async () => {
    [first, second] = await Promise.all([startNostrRelaySimulator(), startNostrRelaySimulator()]);
  });

  afterAll(async () => {
    await Promise.all([first, second].map((relay) => relay.close()));
  });

  /** An organization whose Nostr channel was connected through the room's own connect flow. */
  async function organization(relays: NostrRelaySimulator[]): Promise<{ apiKey: string; channelId: string }> {
    const name = `Nostr ${Math.random().toString(36).slice(2, 8)}`;
    const org = await createOrganization(world.ctx.db, world.ctx.secrets, { name });
    const context = testConnectContext({ userHosts: connectionPolicyFor(true) });
    const typed = { privateKey, relays: relays.map((relay) => relay.url).join('\n') };
    const account = await nostrConnect.verify(typed, context);
    const channel = await saveConnectedChannel(
      { ...world.ctx, caches: world.stack.caches },
      { provider: 'nostr', ...account },
      { organizationId: org.organizationId },
    );
    return { apiKey: org.apiKey, channelId: channel.id };
  }



  const notesWith = (relay: NostrRelaySimulator, prefix: string) =>
    relay.stored().filter((event) => event.kind === 1 && event.content.startsWith(prefix));

  it('publishes a thread as signed notes replying to the first one (NIP-10), on every relay', async () => {
    const org = await organization([first, second]);
    const texts = ['Relay thread 1/3', 'Relay thread 2/3', 'Relay thread 3/3'];
    const postId = await publishNow(world.stack.baseUrl, org, texts);
    const parts = await settledParts(world.ctx.db, postId);
    expect(parts.map((part) => part.state)).toEqual(['PUBLISHED', 'PUBLISHED', 'PUBLISHED']);

    for (const relay of [first, second]) {
      const notes = notesWith(relay, 'Relay thread');
      expect(notes.map((note) => note.content)).toEqual(texts);
      expect(notes.map((note) => note.id)).toEqual(parts.map((part) => part.releaseId));
      for (const note of notes) expect(eventFault(note)).toBeNull();
    }
    const [root, reply, last] = notesWith(first, 'Relay thread');
    expect(root?.pubkey).toBe(publicKey);
    expect(root?.tags).toEqual([]);
    expect(reply?.tags).toEqual([['e', root?.id, first.url, 'root', publicKey], ['p', publicKey]]);
    expect(last?.tags).toEqual([
      ['e', root?.id, first.url, 'root', publicKey],
      ['e', reply?.id, first.url, 'reply', publicKey],
      ['p', publicKey],
    ]);
    // created_at is the part's due time: the post's date for the first, the previous part's publication after.
    expect(root?.created_at).toBe(Math.floor((parts[0]?.publishDate.getTime() ?? 0) / 1000));
    expect(reply?.created_at).toBe(Math.floor((parts[0]?.publishedAt?.getTime() ?? 0) / 1000));
    expect(parts[0]?.releaseURL).toMatch(/^https:\/\/njump\.me\/nevent1[0-9a-z]+$/);
  });

  it('keeps one copy of each part when the relay stored it but the answer was lost and the job retried', async () => {
    const org = await organization([first]);
    // Each note is stored, then the connection drops before its OK; each retry is answered "duplicate:".
    first.failNext('accept-then-drop', 'pass', 'accept-then-drop');
    const postId = await publishNow(world.stack.baseUrl, org, ['Lost answer 1/2', 'Lost answer 2/2']);
    const parts = await settledParts(world.ctx.db, postId);
    expect(parts.map((part) => part.state)).toEqual(['PUBLISHED', 'PUBLISHED']);

    const notes = notesWith(first, 'Lost answer');
    expect(notes.map((note) => note.content)).toEqual(['Lost answer 1/2', 'Lost answer 2/2']);
    expect(parts.map((part) => part.releaseId)).toEqual(notes.map((note) => note.id));
    // Each part was sent twice with the same id, more than a second apart.
    expect(first.eventsSentWithId(notes[0]?.id ?? '')).toBe(2);
    expect(first.eventsSentWithId(notes[1]?.id ?? '')).toBe(2);
    expect(notes[1]?.tags[0]).toEqual(['e', notes[0]?.id, first.url, 'root', publicKey]);
  });

  it('fails the post with the relays\' own words when every relay refuses it', async () => {
    const org = await organization([second]);
    second.failNext({ refuse: 'blocked: you are not on the allow list' });
    const postId = await publishNow(world.stack.baseUrl, org, ['Refused note']);
    const [root] = await settledParts(world.ctx.db, postId);
    expect(root?.state).toBe('ERROR');
    expect(root?.error).toBe(`every relay refused the note: ${second.url}: blocked: you are not on the allow list`);
    expect(notesWith(second, 'Refused note')).toHaveLength(0);
  });
});
