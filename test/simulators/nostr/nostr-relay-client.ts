import { randomBytes } from 'node:crypto';
import type { SignedEvent } from './nostr-signing.ts';

/**
 * The tests' own NIP-01 client, on Node's built-in WebSocket: it reads what a relay holds and
 * sends it events without going through the Nostr room's socket code, so a test that checks the
 * room with it does not check the room against itself.
 */
export type RelayFilterForTest = Record<string, string[] | number[] | number>;

/** What the relay answered an EVENT with: ["OK", id, accepted, message]. */
export interface RelayAnswer {
  accepted: boolean;
  message: string;
}

const answerTimeoutMs = 5_000;

function exchange<T>(
  relayUrl: string,
  opening: unknown,
  onMessage: (message: unknown[], finish: (value: T) => void) => void,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(relayUrl);
    const timer = setTimeout(() => {
      socket.close();
      reject(new Error(`${relayUrl} did not answer ${JSON.stringify(opening)} in time`));
    }, answerTimeoutMs);
    const finish = (value: T) => {
      clearTimeout(timer);
      socket.close();
      resolve(value);
    };
    socket.addEventListener('open', () => { socket.send(JSON.stringify(opening)); });
    socket.addEventListener('error', () => {
      clearTimeout(timer);
      reject(new Error(`the WebSocket to ${relayUrl} failed`));
    });
    socket.addEventListener('message', (received) => {
      const parsed: unknown = JSON.parse(String(received.data));
      if (Array.isArray(parsed)) onMessage(parsed, finish);
    });
  });
}

/** Every event the relay returns for the filter, in the relay's order, up to its EOSE. */
export function eventsOnRelay(relayUrl: string, filter: RelayFilterForTest): Promise<SignedEvent[]> {
  const subscription = `test-${randomBytes(4).toString('hex')}`;
  const found: SignedEvent[] = [];
  return exchange(relayUrl, ['REQ', subscription, filter], (message, finish: (events: SignedEvent[]) => void) => {
    const [type, id, payload] = message;
    if (id !== subscription) return;
    if (type === 'EVENT') found.push(payload as SignedEvent);
    else if (type === 'EOSE' || type === 'CLOSED') finish(found);
  });
}

/** Sends one event and returns the relay's OK for it. */
export function sendEvent(relayUrl: string, event: SignedEvent): Promise<RelayAnswer> {
  return exchange(relayUrl, ['EVENT', event], (message, finish: (answer: RelayAnswer) => void) => {
    const [type, id, accepted, text] = message;
    if (type !== 'OK' || id !== event.id) return;
    finish({ accepted: accepted === true, message: typeof text === 'string' ? text : '' });
  });
}
