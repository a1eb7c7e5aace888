import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { ConnectionPolicy } from '../../net/connection-policy.ts';
import { eventIsAuthentic, nostrEvent, type NostrEvent } from './event.ts';
import { relayText } from './relay-url.ts';
import { openRelaySocket, type RelaySocket } from './relay-socket.ts';

/** A NIP-01 filter, as far as SPS asks: by id, author and kind. */
export interface RelayFilter {
  ids?: string[];
  authors?: string[];
  kinds?: number[];
  limit?: number;
}

export interface RelayAnswers {
  /** Authentic events matching the filter, from every relay that answered, each once, newest first. */
  events: NostrEvent[];
  /** Relays that finished the query (EOSE or CLOSED). */
  answered: string[];
  /** Why each other relay gave nothing (kept for the logs, never shown: it maps hosts). */
  failures: { relay: string; cause: unknown }[];
}

const relayMessage = z.tuple([z.string(), z.string()]).rest(z.unknown());

/** Only events the filter asked for, with an id and signature that hold, count: a relay can send anything. */
function wanted(event: NostrEvent, filter: RelayFilter): boolean {
  return (filter.ids?.includes(event.id) ?? true)
    && (filter.authors?.includes(event.pubkey) ?? true)
    && (filter.kinds?.includes(event.kind) ?? true)
    && eventIsAuthentic(event);
}

function queryRelay(
  relay: URL,
  filter: RelayFilter,
  policy: ConnectionPolicy,
  timeoutMs: number,
): Promise<NostrEvent[]> {
  const name = relayText(relay);
  const subscription = `sps-${randomBytes(6).toString('hex')}`;
  const signal = AbortSignal.timeout(timeoutMs);
  return new Promise((resolve, reject) => {
    const found: NostrEvent[] = [];
    let socket: RelaySocket | null = null;
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      socket?.close();
      outcome();
    };
    signal.addEventListener('abort', () => {
      settle(() => { reject(new Error(`${name} did not answer within ${String(timeoutMs)} ms`)); });
    });
    const onMessage = (text: string) => {
      const message = relayMessage.safeParse(JSON.parse(text));
      if (!message.success || message.data[1] !== subscription) return;
      const [type, , payload] = message.data;
      if (type === 'EVENT') {
        const event = nostrEvent.safeParse(payload);
        if (event.success && wanted(event.data, filter)) found.push(event.data);
      } else if (type === 'EOSE' || type === 'CLOSED') {
        if (type === 'EOSE') socket?.send(JSON.stringify(['CLOSE', subscription]));
        settle(() => { resolve(found); });
      }
    };
    openRelaySocket(relay, policy, signal, {
      onMessage: (text) => {
        try {
          onMessage(text);
        } catch (error) {
          settle(() => { reject(new Error(`${name} sent a message that is not JSON`, { cause: error })); });
        }
      },
      onClose: (error) => {
        settle(() => { reject(new Error(`${name} closed the connection before answering`, { cause: error })); });
      },
    }).then((opened) => {
      socket = opened;
      if (settled) opened.close();
      else opened.send(JSON.stringify(['REQ', subscription, filter]));
    }, (error: unknown) => {
      settle(() => { reject(new Error(`could not reach ${name}`, { cause: error })); });
    });
  });
}

/** Asks every relay at once and merges what the ones that answered hold. */
export async function queryRelays(
  relays: readonly URL[],
  filter: RelayFilter,
  policy: ConnectionPolicy,
  timeoutMs: number,
): Promise<RelayAnswers> {
  const results = await Promise.all(relays.map((relay) => queryRelay(relay, filter, policy, timeoutMs).then(
    (events) => ({ relay: relayText(relay), events, cause: null as unknown }),
    (cause: unknown) => ({ relay: relayText(relay), events: null, cause }),
  )));
  const byId = new Map<string, NostrEvent>();
  const answered: string[] = [];
  const failures: { relay: string; cause: unknown }[] = [];
  for (const { relay, events, cause } of results) {
    if (events === null) {
      failures.push({ relay, cause });
      continue;
    }
    answered.push(relay);
    for (const event of events) byId.set(event.id, event);
  }
  const events = [...byId.values()].sort((a, b) => b.created_at - a.created_at);
  return { events, answered, failures };
}
