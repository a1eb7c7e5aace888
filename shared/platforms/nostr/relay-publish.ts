import { z } from 'zod';
import type { ConnectionPolicy } from '../../net/connection-policy.ts';
import type { NostrEvent } from './event.ts';
import { relayText } from './relay-url.ts';
import { openRelaySocket, type RelaySocket } from './relay-socket.ts';

/** What one relay did with an event we sent it (NIP-01 OK). */
export type RelayOutcome =
  | { relay: string; kind: 'accepted'; message: string }
  | { relay: string; kind: 'refused'; message: string }
  /** No OK came back: refused connection, closed before answering, or no answer in time. */
  | { relay: string; kind: 'unreachable'; cause: unknown };

const okMessage = z.tuple([z.literal('OK'), z.string(), z.boolean(), z.string().optional()]).rest(z.unknown());

/**
 * Sends `["EVENT", event]` to one relay and waits for its `["OK", id, accepted, message]`. A relay
 * that accepted but dropped the connection before answering counts as unreachable: the event may
 * be stored there, which is harmless, since sending it again is answered "duplicate:".
 */
function sendToRelay(
  relay: URL,
  event: NostrEvent,
  policy: ConnectionPolicy,
  timeoutMs: number,
): Promise<RelayOutcome> {
  const name = relayText(relay);
  const signal = AbortSignal.timeout(timeoutMs);
  return new Promise((resolve) => {
    let socket: RelaySocket | null = null;
    let settled = false;
    const settle = (outcome: RelayOutcome) => {
      if (settled) return;
      settled = true;
      socket?.close();
      resolve(outcome);
    };
    signal.addEventListener('abort', () => {
      const late = new Error(`${name} did not answer within ${String(timeoutMs)} ms`);
      settle({ relay: name, kind: 'unreachable', cause: late });
    });
    openRelaySocket(relay, policy, signal, {
      onMessage: (text) => {
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch (error) {
          settle({ relay: name, kind: 'unreachable', cause: error });
          return;
        }
        // NOTICE, AUTH challenges and anything else are not the answer to our event.
        const ok = okMessage.safeParse(parsed);
        if (!ok.success || ok.data[1] !== event.id) return;
        const [, , accepted, message = ''] = ok.data;
        settle({ relay: name, kind: accepted ? 'accepted' : 'refused', message });
      },
      onClose: (error) => {
        const early = error ?? new Error(`${name} closed the connection before OK`);
        settle({ relay: name, kind: 'unreachable', cause: early });
      },
    }).then((opened) => {
      socket = opened;
      if (settled) opened.close();
      else opened.send(JSON.stringify(['EVENT', event]));
    }, (error: unknown) => {
      settle({ relay: name, kind: 'unreachable', cause: error });
    });
  });
}

/** Sends the event to every relay at once; each outcome is kept, in the relays' order. */
export function sendToRelays(
  relays: readonly URL[],
  event: NostrEvent,
  policy: ConnectionPolicy,
  timeoutMs: number,
): Promise<RelayOutcome[]> {
  return Promise.all(relays.map((relay) => sendToRelay(relay, event, policy, timeoutMs)));
}
