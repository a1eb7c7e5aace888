import { schnorr } from '@noble/curves/secp256k1.js';
import { z } from 'zod';
import type {
  AdapterOptions, ChannelCredentials, CommentInput, PlatformAdapter, PublishInput, PublishMedia, PublishResult,
} from '../kit/platform-adapter.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { platformRequest } from '../kit/platform-http.ts';
import { bech32Decode, bech32Encode } from './bech32.ts';
import { readNostrCredential, type NostrBunkerCredential, type NostrCredential } from './credential.ts';
import { eventIdOf, eventIsAuthentic, nostrEvent, signEvent, type NostrEvent, type UnsignedEvent } from './event.ts';
import { npubOf } from './keys.ts';
import { sendToRelays, type RelayOutcome } from './relay-publish.ts';
import { queryRelays, type RelayAnswers, type RelayFilter } from './relay-query.ts';
import { relayText, relayUrlsOf } from './relay-url.ts';
import { openRemoteSigner } from './remote-signer.ts';

const provider = 'nostr';
/** The web gateway release URLs point to: it resolves a nevent from its relay hints and the big relays. */
const gateway = 'https://njump.me';
const textNote = 1;
/** NIP-09: an event asking relays and clients to drop the author's events it names. */
const deletionRequest = 5;

function refused(message: string, cause?: unknown): PlatformError {
  return new PlatformError({ kind: 'permanent', provider, message, cause });
}

function unreachable(message: string, cause?: unknown): PlatformError {
  return new PlatformError({ kind: 'retryable', provider, message, cause });
}

const publicKeyOf = (secretKey: string) =>
  Buffer.from(schnorr.getPublicKey(Buffer.from(secretKey, 'hex'))).toString('hex');

/** The author of the channel's notes: derived from the key, or told by the signer at connect time. */
function authorOf(credential: NostrCredential): string {
  return credential.mode === 'bunker' ? credential.userPubkey : publicKeyOf(credential.privateKey);
}

/** NIP-19 nevent: the id, a relay that has it, the author and the kind, as TLV entries. */
function neventOf(id: string, author: string, relay: string | null): string {
  const entry = (type: number, value: Buffer) => Buffer.concat([Buffer.from([type, value.length]), value]);
  const kind = Buffer.alloc(4);
  kind.writeUInt32BE(textNote);
  const entries = [
    entry(0, Buffer.from(id, 'hex')),
    ...(relay === null ? [] : [entry(1, Buffer.from(relay, 'utf8'))]),
    entry(2, Buffer.from(author, 'hex')),
    entry(3, kind),
  ];
  return bech32Encode('nevent', Buffer.concat(entries));
}

const noteUrl = (id: string, author: string, relay: string | null) => `${gateway}/${neventOf(id, author, relay)}`;

/** NIP-01 machine prefixes that mean "not now" rather than "never". */
const passingRefusal = (message: string) => message.startsWith('rate-limited:') || message.startsWith('error:');

/**
 * No relay took the note. Every relay refusing for good (invalid:, blocked:, restricted:, pow:,
 * auth-required:...) fails the post with what they said; a relay that was not reached, or one that
 * only asked us to slow down, may take the same note later.
 */
function notPublished(outcomes: RelayOutcome[], what = 'the note'): PlatformError {
  const refusals = outcomes.flatMap((outcome) => (outcome.kind === 'refused' ? [outcome] : []));
  const missed = outcomes.filter((outcome) => outcome.kind === 'unreachable');
  const said = refusals.map(({ relay, message }) => `${relay}: ${message === '' ? 'no reason given' : message}`);
  // Which relay failed how stays in the cause: a refused address or an errno must not reach the user.
  const cause = new AggregateError(missed.map((outcome) => outcome.cause));
  if (missed.length > 0 || refusals.some((outcome) => passingRefusal(outcome.message))) {
    const parts = [
      ...(missed.length === 0 ? [] : [`could not reach ${String(missed.length)} of ${String(outcomes.length)} relays`]),
      ...said,
    ];
    return unreachable(`no relay accepted ${what}: ${parts.join('; ')}`, cause);
  }
  return refused(`every relay refused ${what}: ${said.join('; ')}`);
}

/** A query's answers, once at least one relay gave them. */
function reached(answers: RelayAnswers, what: string): RelayAnswers {
  if (answers.answered.length > 0) return answers;
  const cause = new AggregateError(answers.failures.map((failure) => failure.cause));
  throw unreachable(`none of the relays answered while reading ${what}`, cause);
}

const metadata = z.object({
  name: z.string().optional().catch(undefined),
  display_name: z.string().optional().catch(undefined),
  picture: z.string().optional().catch(undefined),
  about: z.string().optional().catch(undefined),
  nip05: z.string().optional().catch(undefined),
  website: z.string().optional().catch(undefined),
});

/** NIP-11 relay information, read leniently: relays fill in what they like. */
const relayInformation = z.object({
  name: z.string().optional().catch(undefined),
  description: z.string().optional().catch(undefined),
  software: z.string().optional().catch(undefined),
  version: z.string().optional().catch(undefined),
  supported_nips: z.array(z.union([z.number(), z.string()])).optional().catch(undefined),
  limitation: z.object({
    max_message_length: z.number().optional().catch(undefined),
    max_content_length: z.number().optional().catch(undefined),
    max_event_tags: z.number().optional().catch(undefined),
    auth_required: z.boolean().optional().catch(undefined),
    payment_required: z.boolean().optional().catch(undefined),
    restricted_writes: z.boolean().optional().catch(undefined),
    created_at_lower_limit: z.number().optional().catch(undefined),
    created_at_upper_limit: z.number().optional().catch(undefined),
  }).optional().catch(undefined),
});

/** The hex public key a tool was given as hex or npub. */
function publicKeyFrom(value: unknown): string {
  const text = typeof value === 'string' ? value.trim() : '';
  if (/^[0-9a-f]{64}$/i.test(text)) return text.toLowerCase();
  const decoded = bech32Decode('npub', text);
  if (decoded?.length !== 32) throw refused('pubkey must be an npub1... key or 64 hex characters');
  return Buffer.from(decoded).toString('hex');
}

/**
 * Publishes kind 1 text notes (NIP-01) to the channel's relays, signed with the stored key or by
 * the user's remote signer (NIP-46). A note counts as published once one relay answers OK true.
 *
 * Exactly once: a note's id is the hash of everything in it (author, created_at, kind, tags,
 * text), and relays keep one copy per id, answering a repeat "duplicate:" with OK true. Every
 * attempt at one part builds the same note: created_at is the part's due time (`dueAt`, saved
 * with the post or the previous part, the same on every attempt), reply tags come from the
 * parent note itself (immutable) and the channel's first relay as hint. So a retry after a crash
 * between a relay's accept and our write of the release id sends the same id again, and no relay
 * can hold two copies. The signature may differ between attempts (BIP-340 signing is randomized);
 * relays match on the id. Rescheduling a post, editing it, or changing the channel's relays while
 * a part is in that gap would make a different note. A caller that gives no `dueAt` gets the
 * clock's second instead, and with it no such protection.
 *
 * Media: a note links each attached file by its public URL, after the text, as clients render
 * them, with a NIP-92 `imeta` tag giving its type and alt text. Readers' clients fetch them, so
 * POST /posts refuses media that only a private address serves (media-reach.ts).
 */
/** NIP-92: an `imeta` tag per linked file, its URL, MIME type and (when given) alt text. */
function mediaTag(media: PublishMedia): string[] {
  return ['imeta', `url ${media.url}`, `m ${media.mimeType}`, ...(media.alt === null ? [] : [`alt ${media.alt}`])];
}

export function createNostrAdapter(options: AdapterOptions): PlatformAdapter {
  const policy = options.userHosts;

  function credentialOf(channel: ChannelCredentials): NostrCredential {
    return readNostrCredential(channel.accessToken);
  }

  const relaysOf = (credential: NostrCredential) => relayUrlsOf(credential.relays, policy);

  /** What the relays that answered hold; none answering is worth another try, the relays being down. */
  async function read(relays: URL[], filter: RelayFilter, what: string): Promise<RelayAnswers> {
    return reached(await queryRelays(relays, filter, policy, options.timeoutMs), what);
  }

  /**
   * Asks the remote signer to sign, and takes its answer only when it is the very note asked for:
   * the same id (so the same text, time and tags), by the channel's author, with a valid signature.
   */
  async function signRemotely(credential: NostrBunkerCredential, template: UnsignedEvent): Promise<NostrEvent> {
    const expectedId = eventIdOf({ ...template, pubkey: credential.userPubkey });
    const session = openRemoteSigner(
      {
        remoteSignerPubkey: credential.remoteSignerPubkey,
        relays: relayUrlsOf(credential.signerRelays, policy),
        secret: credential.secret ?? null,
      },
      { privateKey: credential.clientSecretKey, publicKey: publicKeyOf(credential.clientSecretKey) },
      { timeoutMs: options.timeoutMs, userHosts: policy },
    );
    let answer: string;
    try {
      // The signer knows SPS's client key since connect: no new connect (its secret is single-use).
      answer = await session.request('sign_event', [JSON.stringify(template)]);
    } finally {
      session.close();
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(answer);
    } catch (error) {
      throw refused('the remote signer answered sign_event with something that is not an event', error);
    }
    const event = nostrEvent.safeParse(parsed);
    if (!event.success || event.data.id !== expectedId || event.data.pubkey !== credential.userPubkey
      || !eventIsAuthentic(event.data)) {
      throw refused('the remote signer returned a note other than the one SPS asked it to sign');
    }
    return event.data;
  }

  function sign(credential: NostrCredential, template: UnsignedEvent): Promise<NostrEvent> {
    if (credential.mode === 'key') return Promise.resolve(signEvent(credential.privateKey, template));
    return signRemotely(credential, template);
  }

  /**
   * NIP-10 marked tags for a reply to `parentId`: the thread's root (the parent's own root tag,
   * or the parent when it has none), the parent unless it is the root, and the parent's people.
   */
  async function replyTags(relays: URL[], parentId: string): Promise<string[][]> {
    const answers = await read(relays, { ids: [parentId], limit: 1 }, 'the note this part answers');
    const parent = answers.events.find((event) => event.id === parentId);
    if (parent === undefined) {
      // A relay may still be syncing; guessing the root instead would make a different note on retry.
      throw unreachable(`none of the relays has the note this part answers (${parentId}) yet`);
    }
    const [first] = relays;
    if (first === undefined) {
      throw new PlatformError({ kind: 'disconnected', provider, message: 'the channel names no relay' });
    }
    // The channel's first relay, not the one that answered: the hint is part of the note's id.
    const hint = relayText(first);
    const rootTag = parent.tags.find((tag) => tag[0] === 'e' && tag[3] === 'root');
    const root = rootTag?.[1];
    const rootAuthor = rootTag?.[4] === undefined ? [] : [rootTag[4]];
    const tags = root === undefined
      ? [['e', parent.id, hint, 'root', parent.pubkey]]
      : [['e', root, hint, 'root', ...rootAuthor], ['e', parent.id, hint, 'reply', parent.pubkey]];
    const people = [parent.pubkey, ...parent.tags.filter((tag) => tag[0] === 'p').map((tag) => tag[1] ?? '')];
    for (const person of new Set(people.filter((key) => /^[0-9a-f]{64}$/.test(key)))) tags.push(['p', person]);
    return tags;
  }

  async function publishNote(input: PublishInput, parentId: string | null): Promise<PublishResult> {
    const credential = credentialOf(input.channel);
    const author = authorOf(credential);
    const relays = relaysOf(credential);
    const tags = parentId === null ? [] : await replyTags(relays, parentId);
    tags.push(...input.media.map(mediaTag));
    const content = [input.content, ...input.media.map((media) => media.url)].filter((line) => line !== '').join('\n');
    // The same second on every attempt at this part: the note's id depends on it.
    const createdAt = Math.floor((input.dueAt ?? new Date()).getTime() / 1000);
    const event = await sign(credential, { kind: textNote, created_at: createdAt, tags, content });
    const outcomes = await sendToRelays(relays, event, policy, options.timeoutMs);
    const accepted = outcomes.find((outcome) => outcome.kind === 'accepted');
    if (accepted === undefined) throw notPublished(outcomes);
    return { releaseId: event.id, releaseURL: noteUrl(event.id, author, accepted.relay) };
  }

  /** The newest event the filter finds on any of the channel's relays, or null. */
  async function newest(channel: ChannelCredentials, filter: RelayFilter, what: string): Promise<NostrEvent | null> {
    const answers = await read(relaysOf(credentialOf(channel)), filter, what);
    return answers.events[0] ?? null;
  }

  return {
    provider,
    publish: (input: PublishInput) => publishNote(input, null),
    comment: (input: CommentInput) => publishNote(input, input.parentReleaseId),

    /**
     * A NIP-09 deletion request (kind 5, naming the note and its kind) to the channel's relays,
     * signed like the notes: done once one relay accepts it. Relays that honour NIP-09 drop the
     * note; it cannot reach relays that copied the note on their own.
     */
    async remove(channel, { releaseId }) {
      if (!/^[0-9a-f]{64}$/.test(releaseId)) throw refused(`${releaseId} is not the id of a Nostr note`);
      const credential = credentialOf(channel);
      const template = {
        kind: deletionRequest,
        created_at: Math.floor(Date.now() / 1000),
        tags: [['e', releaseId], ['k', String(textNote)]],
        content: '',
      };
      const request = await sign(credential, template);
      const outcomes = await sendToRelays(relaysOf(credential), request, policy, options.timeoutMs);
      if (!outcomes.some((outcome) => outcome.kind === 'accepted')) {
        throw notPublished(outcomes, 'the deletion request');
      }
    },

    async recentContent(channel) {
      const credential = credentialOf(channel);
      const author = authorOf(credential);
      const filter = { kinds: [textNote], authors: [author], limit: 20 };
      const answers = await read(relaysOf(credential), filter, 'recent notes');
      return answers.events.slice(0, 20).map((event) => ({ id: event.id, url: noteUrl(event.id, author, null) }));
    },

    tools: {
      /** The relays SPS writes to, and the account's own published list (NIP-65, kind 10002). */
      async relays(channel) {
        const credential = credentialOf(channel);
        const author = authorOf(credential);
        const list = await newest(channel, { kinds: [10002], authors: [author], limit: 1 }, 'the relay list');
        // NIP-65: a relay without a marker is both read and written.
        const listed = list?.tags.filter((tag) => tag[0] === 'r' && tag[1] !== undefined)
          .map(([, url = '', marker]) => ({ url, read: marker !== 'write', write: marker !== 'read' }));
        return {
          publishTo: credential.relays,
          signerRelays: credential.mode === 'bunker' ? credential.signerRelays : [],
          relayList: list === null
            ? null
            : { updatedAt: new Date(list.created_at * 1000).toISOString(), relays: listed ?? [] },
        };
      },

      /** NIP-11: the relay's information document, over HTTP(S) at the relay's own address. */
      async relayLimits(_channel, data) {
        const typed = typeof data.relay === 'string' ? data.relay.trim() : '';
        if (typed === '') throw refused('relay must be a relay URL, like wss://relay.damus.io');
        const [relay] = relayUrlsOf([typed], policy);
        if (relay === undefined) throw refused('relay must be a relay URL, like wss://relay.damus.io');
        const url = new URL(relay);
        url.protocol = relay.protocol === 'wss:' ? 'https:' : 'http:';
        const body = await platformRequest({
          provider,
          method: 'GET',
          url: url.href,
          headers: { Accept: 'application/nostr+json' },
          userHost: policy,
          serverName: 'the relay',
          timeoutMs: options.timeoutMs,
        });
        if (typeof body !== 'object' || body === null || Array.isArray(body)) {
          throw refused(`${relayText(relay)} does not publish relay information (NIP-11)`);
        }
        const info = relayInformation.parse(body);
        const limits = info.limitation;
        return {
          relay: relayText(relay),
          name: info.name ?? null,
          description: info.description ?? null,
          software: info.software ?? null,
          version: info.version ?? null,
          supportedNips: info.supported_nips ?? [],
          maxMessageLength: limits?.max_message_length ?? null,
          maxContentLength: limits?.max_content_length ?? null,
          maxEventTags: limits?.max_event_tags ?? null,
          authRequired: limits?.auth_required ?? false,
          paymentRequired: limits?.payment_required ?? false,
          restrictedWrites: limits?.restricted_writes ?? false,
          createdAtLowerLimit: limits?.created_at_lower_limit ?? null,
          createdAtUpperLimit: limits?.created_at_upper_limit ?? null,
        };
      },

      /** The latest kind 0 the key signed, from the channel's relays. */
      async profile(channel, data) {
        const pubkey = publicKeyFrom(data.pubkey);
        const found = await newest(channel, { kinds: [0], authors: [pubkey], limit: 1 }, 'the profile');
        let content: unknown = null;
        if (found !== null) {
          try {
            content = JSON.parse(found.content);
          } catch (error) {
            // Some clients wrote plain text here: the profile then says nothing beyond the key.
            if (!(error instanceof SyntaxError)) throw error;
          }
        }
        const fields = metadata.safeParse(content);
        const profile = fields.success ? fields.data : {};
        return {
          pubkey,
          npub: npubOf(pubkey),
          found: found !== null,
          name: profile.name ?? null,
          displayName: profile.display_name ?? null,
          picture: profile.picture ?? null,
          about: profile.about ?? null,
          nip05: profile.nip05 ?? null,
          website: profile.website ?? null,
          updatedAt: found === null ? null : new Date(found.created_at * 1000).toISOString(),
        };
      },
    },
  };
}
