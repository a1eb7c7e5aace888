import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { ConnectionPolicy } from '../../net/connection-policy.ts';
import { FetchFailure } from '../../net/fetch-failure.ts';
import { checkPinnedTarget } from '../../net/pinned-request.ts';
import type { ConnectContext, CredentialsConnect, VerifiedAccount } from '../kit/platform-connect.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { encodeNostrCredential } from './credential.ts';
import { NostrKeyError, nostrKeysFrom, npubOf } from './keys.ts';
import { openRelaySocket, type RelaySocket } from './relay-socket.ts';

const provider = 'nostr';
/** More relays than this is not a list someone keeps by hand, and each one costs a connection. */
const maxRelays = 20;

function refused(message: string, cause?: unknown): PlatformError {
  return new PlatformError({ kind: 'permanent', provider, message, cause });
}

/** One relay URL as typed, checked like any user-given address and written without a trailing slash. */
function relayUrlOf(typed: string, policy: ConnectionPolicy): URL {
  let url: URL;
  try {
    url = new URL(typed);
  } catch (error) {
    throw refused(`${typed} is not a relay URL: relays look like wss://relay.example.com`, error);
  }
  const schemes = policy.allowHttp ? ['wss:', 'ws:'] : ['wss:'];
  if (!schemes.includes(url.protocol)) throw refused(`${typed} is not a relay URL: relays start with wss://`);
  const asHttp = new URL(url);
  asHttp.protocol = url.protocol === 'wss:' ? 'https:' : 'http:';
  try {
    checkPinnedTarget(asHttp, policy);
  } catch (error) {
    if (!(error instanceof FetchFailure)) throw error;
    throw refused(`the relay ${typed} cannot be used: ${error.message}`, error);
  }
  return url;
}

export function relayUrlsFrom(typed: string, policy: ConnectionPolicy): URL[] {
  const lines = [...new Set(typed.split(/[\s,]+/).filter((line) => line !== ''))];
  if (lines.length === 0) throw refused('name at least one relay, like wss://relay.damus.io');
  if (lines.length > maxRelays) throw refused(`name at most ${String(maxRelays)} relays`);
  return lines.map((line) => relayUrlOf(line, policy));
}

function relayText(url: URL): string {
  return url.pathname === '/' ? `${url.protocol}//${url.host}` : url.href;
}

const event = z.object({
  id: z.string().regex(/^[0-9a-f]{64}$/),
  pubkey: z.string().regex(/^[0-9a-f]{64}$/),
  created_at: z.number().int().nonnegative(),
  kind: z.number().int(),
  tags: z.array(z.array(z.string())),
  content: z.string(),
  sig: z.string().regex(/^[0-9a-f]{128}$/),
});
type NostrEvent = z.infer<typeof event>;

/** NIP-01: the id is the SHA-256 of the serialized [0, pubkey, created_at, kind, tags, content]. */
function idMatches(candidate: NostrEvent): boolean {
  const { pubkey, created_at: createdAt, kind, tags, content } = candidate;
  const serialized = JSON.stringify([0, pubkey, createdAt, kind, tags, content]);
  return createHash('sha256').update(serialized, 'utf8').digest('hex') === candidate.id;
}

/**
 * Asks one relay for the latest kind 0 (metadata) event of `publicKey`. Resolves with it, or with
 * null when the relay has none or refused the subscription (CLOSED); rejects when the relay could
 * not be reached or did not finish (EOSE) in time.
 */
function latestProfileOn(relay: URL, publicKey: string, context: ConnectContext): Promise<NostrEvent | null> {
  const subscription = `sps-${randomBytes(6).toString('hex')}`;
  const signal = AbortSignal.timeout(context.timeoutMs);
  return new Promise((resolve, reject) => {
    let newest: NostrEvent | null = null;
    let socket: RelaySocket | null = null;
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      socket?.close();
      outcome();
    };
    signal.addEventListener('abort', () => {
      const late = new Error(`${relayText(relay)} did not answer within ${String(context.timeoutMs)} ms`);
      settle(() => { reject(late); });
    });

    const onMessage = (text: string) => {
      const message = z.tuple([z.string(), z.string()]).rest(z.unknown()).safeParse(JSON.parse(text));
      if (!message.success || message.data[1] !== subscription) return;
      const [type, , payload] = message.data;
      if (type === 'EVENT') {
        const found = event.safeParse(payload);
        // A relay may hand back anything: only the key's own, intact metadata counts.
        if (!found.success) return;
        const candidate = found.data;
        if (candidate.kind !== 0 || candidate.pubkey !== publicKey || !idMatches(candidate)) return;
        if (newest === null || candidate.created_at > newest.created_at) newest = candidate;
      } else if (type === 'EOSE') {
        socket?.send(JSON.stringify(['CLOSE', subscription]));
        settle(() => { resolve(newest); });
      } else if (type === 'CLOSED') {
        settle(() => { resolve(newest); });
      }
    };

    openRelaySocket(relay, context.userHosts, signal, {
      onMessage: (text) => {
        try {
          onMessage(text);
        } catch (error) {
          const unreadable = new Error(`${relayText(relay)} sent a message that is not JSON`, { cause: error });
          settle(() => { reject(unreadable); });
        }
      },
      onClose: (error) => {
        const early = new Error(`${relayText(relay)} closed the connection before answering`, { cause: error });
        settle(() => { reject(early); });
      },
    }).then((opened) => {
      socket = opened;
      if (settled) {
        opened.close();
        return;
      }
      opened.send(JSON.stringify(['REQ', subscription, { kinds: [0], authors: [publicKey], limit: 1 }]));
    }, (error: unknown) => {
      settle(() => { reject(new Error(`could not reach ${relayText(relay)}`, { cause: error })); });
    });
  });
}

const metadata = z.object({
  name: z.string().optional().catch(undefined),
  display_name: z.string().optional().catch(undefined),
  picture: z.url({ protocol: /^https?$/ }).max(2000).optional().catch(undefined),
});

/** The kind 0 content (NIP-01: a JSON object); a malformed one tells no more than no profile at all. */
function profileOf(profileEvent: NostrEvent | null): z.infer<typeof metadata> {
  if (profileEvent === null) return {};
  let content: unknown;
  try {
    content = JSON.parse(profileEvent.content);
  } catch {
    // Some clients have written plain text here; the npub stands in as the name.
    return {};
  }
  const parsed = metadata.safeParse(content);
  return parsed.success ? parsed.data : {};
}

export const nostrConnect: CredentialsConnect = {
  kind: 'credentials',
  fields: [
    {
      key: 'privateKey',
      label: 'Private key',
      kind: 'secret',
      help: 'Your nsec1... key (or its 64 hex characters), from your Nostr client\'s key or backup settings;'
        + ' SPS signs your notes with it.',
    },
    {
      key: 'relays',
      label: 'Relays',
      kind: 'textarea',
      help: 'The relays to publish to, one wss:// URL per line, like wss://relay.damus.io.',
    },
  ],

  async verify(values, context): Promise<VerifiedAccount> {
    let keys;
    try {
      keys = nostrKeysFrom(values.privateKey ?? '');
    } catch (error) {
      if (error instanceof NostrKeyError) throw refused(error.message, error);
      throw error;
    }
    const relays = relayUrlsFrom(values.relays ?? '', context.userHosts);

    const answers = await Promise.allSettled(relays.map((relay) => latestProfileOn(relay, keys.publicKey, context)));
    const reached = answers.filter((answer) => answer.status === 'fulfilled').map((answer) => answer.value);
    if (reached.length === 0) {
      // Which relay failed how stays in the cause: the message must not map hosts and ports.
      const causes = answers.map((answer) => (answer.status === 'rejected' ? answer.reason as unknown : null));
      const message = `none of the relays answered: could not read from ${relays.map(relayText).join(', ')}`;
      throw new PlatformError({ kind: 'retryable', provider, message, cause: new AggregateError(causes) });
    }
    const newest = reached.reduce<NostrEvent | null>(
      (best, found) => (found !== null && (best === null || found.created_at > best.created_at) ? found : best),
      null,
    );
    const profile = profileOf(newest);
    const npub = npubOf(keys.publicKey);
    const name = [profile.display_name, profile.name].map((text) => text?.trim() ?? '').find((text) => text !== '');

    return {
      // The public key is the account: it is what every event names as its author.
      accountId: keys.publicKey,
      name: name ?? `${npub.slice(0, 12)}…${npub.slice(-4)}`,
      username: npub,
      picture: profile.picture ?? null,
      instanceUrl: null,
      accessToken: encodeNostrCredential({ privateKey: keys.privateKey, relays: relays.map(relayText) }),
      refreshToken: null,
      expiresAt: null,
    };
  },
};
