import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { ConnectionPolicy } from '../../net/connection-policy.ts';
import type { ConnectContext } from '../kit/platform-connect.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { eventIsAuthentic, nostrEvent, signEvent } from './event.ts';
import type { NostrKeys } from './keys.ts';
import { Nip44Error, nip44ConversationKey, nip44Decrypt, nip44Encrypt } from './nip44.ts';
import { relayText, relayUrlsOf } from './relay-url.ts';
import { openRelaySocket, type RelaySocket } from './relay-socket.ts';

/**
 * A NIP-46 client: requests to a remote signer ("bunker") travel as kind 24133 events, their
 * JSON-RPC body sealed with NIP-44 to the signer's key, over the relays the bunker URL names;
 * answers come back the same way, p-tagged to the client's key.
 */
const provider = 'nostr';
const requestKind = 24133;

function refused(message: string, cause?: unknown): PlatformError {
  return new PlatformError({ kind: 'permanent', provider, message, cause });
}

function unreachable(message: string, cause?: unknown): PlatformError {
  return new PlatformError({ kind: 'retryable', provider, message, cause });
}

/** What a bunker:// URL says: which key answers, on which relays, and the one-time secret if any. */
export interface BunkerPointer {
  remoteSignerPubkey: string;
  relays: URL[];
  secret: string | null;
}

const bunkerShape = 'a bunker URL looks like bunker://<remote signer public key>?relay=wss://...&secret=...';

export function bunkerPointerFrom(typed: string, policy: ConnectionPolicy): BunkerPointer {
  let url: URL;
  try {
    url = new URL(typed.trim());
  } catch (error) {
    throw refused(`this is not a bunker URL: ${bunkerShape}`, error);
  }
  if (url.protocol !== 'bunker:') throw refused(`this is not a bunker URL: ${bunkerShape}`);
  const remoteSignerPubkey = url.hostname.toLowerCase();
  if (!/^[0-9a-f]{64}$/.test(remoteSignerPubkey)) {
    throw refused(`the bunker URL must name the remote signer's public key in 64 hex characters: ${bunkerShape}`);
  }
  const relays = url.searchParams.getAll('relay').filter((relay) => relay !== '');
  if (relays.length === 0) throw refused(`the bunker URL names no relay: ${bunkerShape}`);
  const secret = url.searchParams.get('secret');
  return { remoteSignerPubkey, relays: relayUrlsOf(relays, policy), secret: secret === '' ? null : secret };
}

const response = z.object({
  id: z.string(),
  result: z.string().optional(),
  error: z.string().optional(),
});

interface Pending {
  resolve: (result: string) => void;
  reject: (error: PlatformError) => void;
  /** The id of the kind 24133 event carrying the request, which relays name in their OK. */
  eventId: string;
  /** Relays that refused to carry it (NIP-01 OK false), by reason. */
  refusals: string[];
}

interface Link {
  relay: URL;
  socket: RelaySocket | null;
  /** True once the relay has the subscription (EOSE): only then can no answer slip past. */
  listening: boolean;
  closed: boolean;
}

export interface RemoteSignerSession {
  /** Sends one request and resolves with the signer's result; a signer's error is a 'permanent' refusal. */
  request(method: string, params: string[]): Promise<string>;
  close(): void;
}

/**
 * Opens a session with the signer for `client` (the keys SPS talks with). Everything it does,
 * from connecting to the relays to the last answer, must end within context.timeoutMs.
 */
export function openRemoteSigner(
  bunker: BunkerPointer,
  client: NostrKeys,
  context: Pick<ConnectContext, 'timeoutMs' | 'userHosts'>,
): RemoteSignerSession {
  let conversationKey: Buffer;
  try {
    conversationKey = nip44ConversationKey(client.privateKey, bunker.remoteSignerPubkey);
  } catch (error) {
    if (!(error instanceof Nip44Error)) throw error;
    throw refused('the bunker URL\'s key is not a Nostr public key', error);
  }
  const signal = AbortSignal.timeout(context.timeoutMs);
  const subscription = `sps-${randomBytes(6).toString('hex')}`;
  const pending = new Map<string, Pending>();
  /** Requests written, waiting for a relay to listen before they go out. */
  const outbox: string[] = [];
  const links: Link[] = bunker.relays.map((relay) => ({ relay, socket: null, listening: false, closed: false }));
  let ended: PlatformError | null = null;

  const end = (error: PlatformError) => {
    if (ended !== null) return;
    ended = error;
    for (const link of links) link.socket?.close();
    for (const waiting of pending.values()) waiting.reject(error);
    pending.clear();
  };
  const relayList = bunker.relays.map(relayText).join(', ');
  signal.addEventListener('abort', () => {
    end(unreachable(`the remote signer did not answer within ${String(context.timeoutMs)} ms on ${relayList}`));
  });
  const checkLinks = () => {
    if (links.every((link) => link.closed)) end(unreachable(`could not reach the remote signer's relays ${relayList}`));
  };

  const answer = (payload: unknown) => {
    const found = nostrEvent.safeParse(payload);
    // Only the signer's own, intact answers count: anyone can p-tag an event to the client.
    if (!found.success) return;
    const event = found.data;
    if (event.kind !== requestKind || event.pubkey !== bunker.remoteSignerPubkey || !eventIsAuthentic(event)) return;
    let body: unknown;
    try {
      body = JSON.parse(nip44Decrypt(event.content, conversationKey));
    } catch (error) {
      // Sealed for someone else, or not JSON: not an answer to us.
      if (error instanceof Nip44Error || error instanceof SyntaxError) return;
      throw error;
    }
    const parsed = response.safeParse(body);
    if (!parsed.success) return;
    const waiting = pending.get(parsed.data.id);
    if (waiting === undefined) return;
    pending.delete(parsed.data.id);
    const { result, error } = parsed.data;
    if (result === 'auth_url' && error !== undefined) {
      // The signer wants the user to approve in a browser first: SPS cannot open it, the user can.
      waiting.reject(refused(`the remote signer asks you to approve the connection at ${error}, then connect again`));
    } else if (error !== undefined && error !== '') {
      waiting.reject(refused(`the remote signer refused: ${error}`));
    } else if (result === undefined) {
      waiting.reject(refused('the remote signer answered without a result'));
    } else {
      waiting.resolve(result);
    }
  };

  /**
   * A relay's OK false for a request: once every relay still open refused it (a relay that is not
   * listening yet counts as one that may still carry it), the signer will never see it.
   */
  const refusedBy = (eventId: unknown, reason: unknown) => {
    const entry = [...pending].find(([, waiting]) => waiting.eventId === eventId);
    if (entry === undefined) return;
    const [id, waiting] = entry;
    waiting.refusals.push(typeof reason === 'string' ? reason : '');
    if (waiting.refusals.length < links.filter((link) => !link.closed).length) return;
    pending.delete(id);
    const said = waiting.refusals.filter((text) => text !== '').join('; ') || 'no reason given';
    // NIP-01 machine prefixes: a rate limit passes, anything else (blocked, auth-required...) will not.
    const kind = waiting.refusals.every((text) => text.startsWith('rate-limited:')) ? 'retryable' : 'permanent';
    const message = `the remote signer's relays refused to carry the request: ${said}`;
    waiting.reject(new PlatformError({ kind, provider, message }));
  };

  const onMessage = (link: Link, text: string) => {
    const message = z.tuple([z.string()]).rest(z.unknown()).safeParse(JSON.parse(text));
    if (!message.success) return;
    const [type, name, payload, reason] = message.data;
    if (type === 'EVENT' && name === subscription) answer(payload);
    else if (type === 'OK' && payload === false) refusedBy(name, reason);
    else if (type === 'EOSE' && name === subscription && !link.listening) {
      link.listening = true;
      for (const request of outbox) link.socket?.send(request);
    } else if (type === 'CLOSED' && name === subscription) {
      link.closed = true;
      link.socket?.close();
      checkLinks();
    }
  };

  for (const link of links) {
    openRelaySocket(link.relay, context.userHosts, signal, {
      onMessage: (text) => {
        try {
          onMessage(link, text);
        } catch (error) {
          // A relay that sends garbage is dropped; another may still carry the answer.
          link.closed = true;
          link.socket?.close();
          if (!(error instanceof SyntaxError)) throw error;
          checkLinks();
        }
      },
      onClose: () => {
        link.closed = true;
        checkLinks();
      },
    }).then((socket) => {
      link.socket = socket;
      if (ended !== null) {
        socket.close();
        return;
      }
      const filter = { kinds: [requestKind], authors: [bunker.remoteSignerPubkey], '#p': [client.publicKey] };
      socket.send(JSON.stringify(['REQ', subscription, filter]));
    }, () => {
      // Which relay failed how is not the user's business; the session fails once none is left.
      link.closed = true;
      checkLinks();
    });
  }

  return {
    request(method, params) {
      if (ended !== null) return Promise.reject(ended);
      const id = randomBytes(8).toString('hex');
      const sealed = nip44Encrypt(JSON.stringify({ id, method, params }), conversationKey);
      const event = signEvent(client.privateKey, {
        kind: requestKind,
        created_at: Math.floor(Date.now() / 1000),
        tags: [['p', bunker.remoteSignerPubkey]],
        content: sealed,
      });
      const message = JSON.stringify(['EVENT', event]);
      return new Promise<string>((resolve, reject) => {
        pending.set(id, { resolve, reject, eventId: event.id, refusals: [] });
        outbox.push(message);
        for (const link of links) if (link.listening && !link.closed) link.socket?.send(message);
      });
    },
    close() {
      end(unreachable('the session with the remote signer was closed'));
    },
  };
}
