import { Types } from 'mongoose';
import { randomCredential, type SecretBox } from '../../crypto/secret-box.ts';
import type { CacheInvalidation, CacheTopic } from '../../cache/invalidation-bus.ts';
import type { Database } from '../../db/database.ts';
import type { WebhookEndpoint } from '../../db/models/webhook-endpoint.ts';
import { asObjectId } from '../../db/object-id.ts';
import { DomainError, notFound } from '../../errors.ts';
import type { ConnectionPolicy } from '../../net/connection-policy.ts';
import { checkedEndpointUrl } from './endpoint-url.ts';
import { isWebhookEventType, webhookEventTypes, type WebhookEventType } from './webhook-events.ts';

/** Enough for a few environments and tools per organization; each event is sent to each of them. */
export const maxEndpointsPerOrganization = 20;

export type StoredEndpoint = WebhookEndpoint & { _id: Types.ObjectId };

export interface EndpointView {
  id: string;
  url: string;
  events: WebhookEventType[];
  createdAt: string;
}

export interface WebhookEndpointDeps {
  db: Database;
  secrets: SecretBox;
  /** The deployment's connection policy: which endpoint addresses may be registered. */
  userHosts: ConnectionPolicy;
  /** Api processes keep each organization's endpoints (webhook-outbox.ts): a change is told to all of them. */
  caches: CacheInvalidation;
}

/** The topic of an organization's endpoints on the cache bus: registering or deleting one publishes it. */
export const endpointsTopic = (organizationId: string): CacheTopic => `webhooks:${organizationId}`;

export function endpointView(endpoint: StoredEndpoint): EndpointView {
  return {
    id: endpoint._id.toString(),
    url: endpoint.url,
    events: endpoint.events.filter(isWebhookEventType),
    createdAt: endpoint.createdAt.toISOString(),
  };
}

/** `whsec_` and 32 random bytes (base64url): the key receivers check the signature with. */
function newWebhookSecret(): string {
  return randomCredential('whsec_');
}

/** The distinct event types asked for, in the catalogue's order; an unknown name is refused by name. */
export function checkedEvents(values: readonly string[]): WebhookEventType[] {
  const unknown = values.filter((value) => !isWebhookEventType(value));
  if (unknown.length > 0) {
    const message = `unknown event ${JSON.stringify(unknown[0])}; events are ${webhookEventTypes.join(', ')}`;
    throw new DomainError('validation_failed', message, [{ path: 'events', message }]);
  }
  if (values.length === 0) {
    const message = 'choose at least one event';
    throw new DomainError('validation_failed', message, [{ path: 'events', message }]);
  }
  return webhookEventTypes.filter((type) => values.includes(type));
}

/** Registers an endpoint; the answer carries its secret, the only time it is shown. */
export async function registerEndpoint(
  deps: WebhookEndpointDeps,
  organizationId: string,
  input: { url: string; events: readonly string[] },
): Promise<{ endpoint: EndpointView; secret: string }> {
  const url = checkedEndpointUrl(input.url, deps.userHosts);
  const events = checkedEvents(input.events);
  const owner = new Types.ObjectId(organizationId);
  // Counted before the insert: two registrations racing at the cap can pass it by one, which is harmless.
  if ((await deps.db.webhookEndpoints.countDocuments({ organizationId: owner })) >= maxEndpointsPerOrganization) {
    throw new DomainError(
      'conflict',
      `an organization can have at most ${maxEndpointsPerOrganization} webhook endpoints; delete one first`,
    );
  }
  const secret = newWebhookSecret();
  const created = await deps.db.webhookEndpoints.create({
    organizationId: owner, url, events, secretSealed: deps.secrets.seal(secret),
  });
  // Told before answering: an event emitted after the answer, by any api process, reaches it.
  await deps.caches.changed([endpointsTopic(organizationId)]);
  return { endpoint: endpointView(created.toObject()), secret };
}

export async function listEndpoints(db: Database, organizationId: string): Promise<EndpointView[]> {
  const endpoints = await db.webhookEndpoints
    .find({ organizationId: new Types.ObjectId(organizationId) })
    .sort({ createdAt: 1, _id: 1 })
    .lean();
  return endpoints.map(endpointView);
}

/** The organization's endpoint; another organization's id, or none, is "not found" alike. */
export async function findOwnedEndpoint(
  db: Database,
  organizationId: string,
  endpointId: string,
): Promise<StoredEndpoint> {
  const id = asObjectId(endpointId);
  const endpoint = id === null
    ? null
    : await db.webhookEndpoints.findOne({ _id: id, organizationId: new Types.ObjectId(organizationId) }).lean();
  if (endpoint === null) throw notFound(`webhook endpoint ${JSON.stringify(endpointId)}`);
  return endpoint;
}

/**
 * Deletes an endpoint and its delivery log. The endpoint goes first: a delivery of it that a
 * worker picks up meanwhile finds no endpoint and is dropped rather than sent.
 */
export async function deleteEndpoint(
  deps: { db: Database; caches: CacheInvalidation },
  organizationId: string,
  endpointId: string,
): Promise<void> {
  const { db } = deps;
  const endpoint = await findOwnedEndpoint(db, organizationId, endpointId);
  await db.webhookEndpoints.deleteOne({ _id: endpoint._id });
  // Before the log goes: an emit still holding the endpoint writes no delivery after it is cleared.
  await deps.caches.changed([endpointsTopic(organizationId)]);
  await db.webhookDeliveries.deleteMany({ endpointId: endpoint._id });
}

/** A new secret: every attempt from now on is signed with it, retries of older deliveries included. */
export async function rotateEndpointSecret(
  deps: Pick<WebhookEndpointDeps, 'db' | 'secrets'>,
  organizationId: string,
  endpointId: string,
): Promise<{ endpoint: EndpointView; secret: string }> {
  const endpoint = await findOwnedEndpoint(deps.db, organizationId, endpointId);
  const secret = newWebhookSecret();
  const secretSealed = deps.secrets.seal(secret);
  await deps.db.webhookEndpoints.updateOne({ _id: endpoint._id }, { $set: { secretSealed } });
  return { endpoint: endpointView(endpoint), secret };
}
