import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNostrRelay, type RunningNostrRelay } from '../../scripts/local/nostr-relay.ts';
import { connectWithCredentials } from '../../shared/domain/channels/connect-with-credentials.ts';
import { createOrganization } from '../../shared/domain/organizations/organizations.ts';
import { connectionPolicyFor } from '../../shared/net/connection-policy.ts';
import { nostrConnect } from '../../shared/platforms/nostr/connect.ts';
import { npubOf } from '../../shared/platforms/nostr/keys.ts';
import { sendToRelays } from '../../shared/platforms/nostr/relay-publish.ts';
import { startAnswerDroppingProxy, type AnswerDroppingProxy } from '../simulators/nostr/answer-dropping-proxy.ts';
import { eventsOnRelay, sendEvent } from '../simulators/nostr/nostr-relay-client.ts';
import { eventFault, signedEvent } from '../simulators/nostr/nostr-signing.ts';
import { testConnectContext } from '../simulators/kit/connect-context.ts';
import { publishNow, settledParts, uploadFile } from '../support/publish-now.ts';
import { makeSmallMedia } from '../support/small-media.ts';
import { useSimulatedStack } from '../support/simulated-stack.ts';

// BIP-340 test vector 0: secret key 3.
const privateKey = '0000000000000000000000000000000000000000000000000000000000000003';
const publicKey = 'f9308a019258c31049344f85f89d5229b531c845836f99b08601f113bce036f9';
const policy = connectionPolicyFor(true);

/**
 * The Nostr room against a real relay (khatru, scripts/nostr-relay) instead of our simulator: the
 * relay checks every id and signature itself, keeps one copy per id, answers filters on the tags
 * the adapter writes, and refuses with its own words. What only a simulator can stage (a relay
 * that stalls, a relay that lies) stays in nostr-publishing.test.ts.
 */
describe('publishing to a real Nostr relay', () => {
  // Retries wait over a second, so a note dated from the clock instead of the part would get a new id.
  // Media are linked by URL for readers' clients to fetch: served, as in production, at a public address.
  const world = useSimulatedStack({
    overrides: {
      PUBLISH_ATTEMPTS: '5', PUBLISH_BACKOFF_MS: '1100', UPLOADS_PUBLIC_URL: 'https://media.sps.example/uploads',
    },
  });
  const media = makeSmallMedia();
  let relay: RunningNostrRelay;
  /** A relay that carries profiles only, refusing notes with khatru's own kind policy. */
  let profilesOnly: RunningNostrRelay;
  let proxy: AnswerDroppingProxy;

  beforeAll(async () => {
    [relay, profilesOnly] = await Promise.all([startNostrRelay(), startNostrRelay({ onlyKinds: [0] })]);
    proxy = await startAnswerDroppingProxy(relay.url);
  });

  afterAll(async () => {
    await proxy.close();
    await Promise.all([relay.close(), profilesOnly.close()]);
    media.remove();
  });

  /** An organization whose Nostr channel was connected with the key, the way the dashboard form does. */
  async function organization(relays: string[]) {
    const name = `Nostr ${Math.random().toString(36).slice(2, 8)}`;
    const org = await createOrganization(world.ctx.db, world.ctx.secrets, { name });
    const connected = await connectWithCredentials(
      { db: world.ctx.db, secrets: world.ctx.secrets, caches: world.stack.caches },
      nostrConnect,
      testConnectContext({ userHosts: policy, timeoutMs: 5_000 }),
      { organizationId: org.organizationId, provider: 'nostr', values: { privateKey, relays: relays.join('\n') } },
    );
    return { apiKey: org.apiKey, channelId: connected.id, account: connected.account };
  }

  const notesOn = async (relayUrl: string, prefix: string) =>
    (await eventsOnRelay(relayUrl, { authors: [publicKey], kinds: [1] }))
      .filter((event) => event.content.startsWith(prefix))
      // A thread's parts often share a second, so created_at does not order them; their "n/3" does.
      .sort((a, b) => a.content.localeCompare(b.content));

  it('connects with the newest profile (kind 0) the relay holds', async () => {
    const older = signedEvent(privateKey, {
      kind: 0, created_at: 1_700_000_000, tags: [], content: JSON.stringify({ name: 'old name' }),
    });
    const newer = signedEvent(privateKey, {
      kind: 0,
      created_at: 1_700_000_100,
      tags: [],
      content: JSON.stringify({
        name: 'relay_alice', display_name: 'Relay Alice', picture: 'https://example.com/a.png',
      }),
    });
    for (const event of [older, newer]) {
      expect(await sendEvent(relay.url, event)).toEqual({ accepted: true, message: '' });
    }
    // A replaceable kind: the relay itself dropped the older profile.
    const profiles = await eventsOnRelay(relay.url, { authors: [publicKey], kinds: [0] });
    expect(profiles.map((event) => event.id)).toEqual([newer.id]);

    const { account } = await organization([relay.url]);
    expect(account).toMatchObject({
      accountId: publicKey,
      name: 'Relay Alice',
      username: npubOf(publicKey),
      picture: 'https://example.com/a.png',
    });
  });

  it('publishes a thread the relay verifies and stores, NIP-10 reply tags, beside a refusing relay', async () => {
    const org = await organization([relay.url, profilesOnly.url]);
    const texts = ['Real relay 1/3', 'Real relay 2/3', 'Real relay 3/3'];
    const postId = await publishNow(world.stack.baseUrl, org, texts);
    const parts = await settledParts(world.ctx.db, postId);
    expect(parts.map((part) => part.state)).toEqual(['PUBLISHED', 'PUBLISHED', 'PUBLISHED']);

    const notes = await notesOn(relay.url, 'Real relay');
    expect(notes.map((note) => note.content)).toEqual(texts);
    expect(notes.map((note) => note.id)).toEqual(parts.map((part) => part.releaseId));
    for (const note of notes) expect(eventFault(note)).toBeNull();
    const [root, reply, last] = notes;
    expect(root?.tags).toEqual([]);
    // The hint is the channel's first relay, as typed at connect.
    expect(reply?.tags).toEqual([['e', root?.id, relay.url, 'root', publicKey], ['p', publicKey]]);
    expect(last?.tags).toEqual([
      ['e', root?.id, relay.url, 'root', publicKey],
      ['e', reply?.id, relay.url, 'reply', publicKey],
      ['p', publicKey],
    ]);
    // The relay indexed those tags: a client asking for the thread's replies finds both.
    const replies = await eventsOnRelay(relay.url, { '#e': [root?.id ?? ''], kinds: [1] });
    expect(replies.map((event) => event.id).sort()).toEqual([reply?.id, last?.id].sort());
    // One relay's acceptance publishes the note; the other refused each and holds none.
    expect(await notesOn(profilesOnly.url, 'Real relay')).toEqual([]);
  });

  it('links a part\'s image and video by their public URLs, with NIP-92 imeta tags the relay keeps', async () => {
    const org = await organization([relay.url]);
    const image = await uploadFile(world.stack.baseUrl, org.apiKey, media.png);
    const video = await uploadFile(world.stack.baseUrl, org.apiKey, media.mp4);
    expect(image.path).toMatch(/^https:\/\/media\.sps\.example\/uploads\//);
    const postId = await publishNow(world.stack.baseUrl, org, [{ content: 'Media note', image: [image, video] }]);
    const [part] = await settledParts(world.ctx.db, postId);
    expect(part?.state).toBe('PUBLISHED');
    const [note] = await notesOn(relay.url, 'Media note');
    expect(note?.content).toBe(`Media note\n${image.path}\n${video.path}`);
    expect(note?.tags).toEqual([
      ['imeta', `url ${image.path}`, 'm image/png'],
      ['imeta', `url ${video.path}`, 'm video/mp4'],
    ]);
    if (note !== undefined) expect(eventFault(note)).toBeNull();
  });

  it('keeps one copy when the relay stored a part but its OK was lost and the job retried', async () => {
    const org = await organization([proxy.url]);
    proxy.dropNextOk();
    const postId = await publishNow(world.stack.baseUrl, org, ['Lost OK 1/2', 'Lost OK 2/2']);
    const parts = await settledParts(world.ctx.db, postId);
    expect(parts.map((part) => part.state)).toEqual(['PUBLISHED', 'PUBLISHED']);
    expect(proxy.dropped()).toBe(1);

    const notes = await notesOn(relay.url, 'Lost OK');
    expect(notes.map((note) => note.content)).toEqual(['Lost OK 1/2', 'Lost OK 2/2']);
    expect(notes.map((note) => note.id)).toEqual(parts.map((part) => part.releaseId));
    expect(notes[1]?.tags[0]).toEqual(['e', notes[0]?.id, proxy.url, 'root', publicKey]);
    // What the retry was told: khatru answers a repeat of an id it holds OK true, and stores nothing new.
    const [first] = notes;
    if (first === undefined) throw new Error('the first part is not on the relay');
    expect(await sendEvent(relay.url, first)).toEqual({ accepted: true, message: '' });
    expect(await notesOn(relay.url, 'Lost OK 1/2')).toHaveLength(1);
  });

  it('fails the post with the relay\'s own words when the only relay refuses notes', async () => {
    const org = await organization([profilesOnly.url]);
    const postId = await publishNow(world.stack.baseUrl, org, ['Refused by policy']);
    const [root] = await settledParts(world.ctx.db, postId);
    expect(root?.state).toBe('ERROR');
    const said = 'blocked: received event kind 1 not allowed';
    expect(root?.error).toBe(`every relay refused the note: ${profilesOnly.url}: ${said}`);
    expect(await notesOn(profilesOnly.url, 'Refused by policy')).toEqual([]);
  });

  it('reports the relay refusing a note whose id or signature does not hold', async () => {
    const note = signedEvent(privateKey, { kind: 1, created_at: 1_700_000_200, tags: [], content: 'Forged' });
    const otherSignature = signedEvent(privateKey, { ...note, content: 'Something else' }).sig;
    const outcomes = await sendToRelays(
      [new URL(relay.url)],
      { ...note, sig: otherSignature },
      policy,
      5_000,
    );
    expect(outcomes).toEqual([{ relay: relay.url, kind: 'refused', message: 'invalid: signature is invalid' }]);
    const edited = await sendToRelays([new URL(relay.url)], { ...note, content: 'Edited' }, policy, 5_000);
    expect(edited).toEqual([{ relay: relay.url, kind: 'refused', message: 'invalid: id is computed incorrectly' }]);
    expect(await notesOn(relay.url, 'Forged')).toEqual([]);
  });
});
