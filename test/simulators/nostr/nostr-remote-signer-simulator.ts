import { randomBytes } from 'node:crypto';
import { MessageCheck } from '../kit/message-check.ts';
import type { NostrRelaySimulator, RelayEvent } from './nostr-relay-simulator.ts';
import { conversation, publicKeyOf, signedEvent } from './nostr-signing.ts';

/**
 * A NIP-46 remote signer ("bunker") listening on relay simulators: it holds the user's key,
 * takes the kind 24133 requests p-tagged to its own key, reads them with NIP-44, and answers
 * `connect` (checking the bunker URL's secret when it has one), `get_public_key`, `sign_event`
 * and `ping` with kind 24133 events sealed to the client. Like the signers people run, it only
 * serves clients that connected first, and can be told to refuse or to stay silent.
 * Each request it reads is held to the `RPC <method>` operations of operations.json (NIP-46): one
 * off the description is answered with an error, as a signer answers a request it cannot take, and
 * an answer of its own off the description fails the test that caused it.
 */
export interface RemoteSignerOptions {
  /** The relays it listens on and answers through. */
  relays: NostrRelaySimulator[];
  /** The key it signs for (hex). */
  userSecretKey: string;
  /** Its own key for talking to clients; a fresh one by default (NIP-46 lets it differ from the user's). */
  signerSecretKey?: string;
  /** The bunker URL's secret; when set, `connect` must carry it. */
  secret?: string;
  /**
   * `refuse`: answer every request with `refusal` as the error (the user said no). `silent`: never
   * answer. `alter`: sign a note other than the one asked for (a later created_at), as a faulty or
   * hostile signer could.
   */
  behaviour?: 'answer' | 'refuse' | 'silent' | 'alter';
  refusal?: string;
}

export interface RemoteSignerRequest {
  client: string;
  method: string;
  params: string[];
}

export interface NostrRemoteSigner {
  remoteSignerPubkey: string;
  userPubkey: string;
  /** bunker://<remote-signer-pubkey>?relay=...&secret=..., as a signer shows it to its user. */
  bunkerUrl: string;
  /** Every request it could read, in order. */
  requests: RemoteSignerRequest[];
}

const requestKind = 24133;

interface ReadRequest {
  id: string;
  /** The method and params as sent, when they have the shape every request has. */
  call: { method: string; params: string[] } | null;
  body: unknown;
}

function requestOf(text: string): ReadRequest | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // Not JSON: nothing a client meant; a signer drops it.
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const { id, method, params } = value as Record<string, unknown>;
  // Without an id there is nothing to answer to.
  if (typeof id !== 'string') return null;
  const shaped = typeof method === 'string' && Array.isArray(params)
    && params.every((param): param is string => typeof param === 'string');
  return { id, call: shaped ? { method, params } : null, body: value };
}

export function startNostrRemoteSigner(options: RemoteSignerOptions): NostrRemoteSigner {
  const signerSecretKey = options.signerSecretKey ?? randomBytes(32).toString('hex');
  const remoteSignerPubkey = publicKeyOf(signerSecretKey);
  const userPubkey = publicKeyOf(options.userSecretKey);
  const behaviour = options.behaviour ?? 'answer';
  const connected = new Set<string>();
  const requests: RemoteSignerRequest[] = [];
  const answered = new Set<string>();
  const check = MessageCheck.forMessages('nostr');

  function handle(method: string, params: string[], client: string): { result: string } | { error: string } {
    if (behaviour === 'refuse') return { error: options.refusal ?? 'the user refused' };
    if (method === 'connect') {
      if (params[0] !== remoteSignerPubkey) return { error: 'connect names another remote signer' };
      if (options.secret !== undefined && params[1] !== options.secret) return { error: 'invalid secret' };
      connected.add(client);
      return { result: 'ack' };
    }
    if (!connected.has(client)) return { error: 'unauthorized: send connect first' };
    if (method === 'get_public_key') return { result: userPubkey };
    if (method === 'ping') return { result: 'pong' };
    if (method === 'sign_event') {
      const template = JSON.parse(params[0] ?? '{}') as Omit<RelayEvent, 'id' | 'sig' | 'pubkey'>;
      const signed = behaviour === 'alter' ? { ...template, created_at: template.created_at + 1 } : template;
      return { result: JSON.stringify(signedEvent(options.userSecretKey, signed)) };
    }
    return { error: `unsupported method ${method}` };
  }

  const onEvent = (event: RelayEvent) => {
    if (event.kind !== requestKind) return;
    if (!event.tags.some(([name, value]) => name === 'p' && value === remoteSignerPubkey)) return;
    // The same request reaches it through each relay it listens on; it answers once.
    if (answered.has(event.id)) return;
    answered.add(event.id);
    const channel = conversation(signerSecretKey, event.pubkey);
    const plain = channel.decrypt(event.content);
    const request = plain === null ? null : requestOf(plain);
    if (request === null) return;
    if (request.call !== null) requests.push({ client: event.pubkey, ...request.call });
    if (behaviour === 'silent') return;
    const { operation, problems } = check.checkCall(request.body);
    const outcome = operation === null ? { error: `unsupported method ${request.call?.method ?? '(none)'}` }
      : problems.length > 0 || request.call === null ? { error: `invalid request: ${problems.join('; ')}` }
        : handle(request.call.method, request.call.params, event.pubkey);
    const payload = { id: request.id, ...outcome };
    if (operation !== null) check.recordOff(operation.route, check.checkCallAnswer(operation, payload));
    const response = signedEvent(signerSecretKey, {
      kind: requestKind,
      created_at: Math.floor(Date.now() / 1000),
      tags: [['p', event.pubkey]],
      content: channel.encrypt(JSON.stringify(payload)),
    });
    for (const relay of options.relays) relay.addEvent(response);
  };
  for (const relay of options.relays) relay.onEvent(onEvent);

  const query = new URLSearchParams(options.relays.map((relay): [string, string] => ['relay', relay.url]));
  if (options.secret !== undefined) query.append('secret', options.secret);
  return { remoteSignerPubkey, userPubkey, bunkerUrl: `bunker://${remoteSignerPubkey}?${query.toString()}`, requests };
}
