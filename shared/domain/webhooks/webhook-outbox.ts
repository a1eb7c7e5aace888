import { Types } from 'mongoose';
import type { InvalidatedCache } from '../../cache/invalidated-cache.ts';
import type { CacheTopic } from '../../cache/invalidation-bus.ts';
import { RecentReads } from '../../cache/recent-reads.ts';
import type { Database } from '../../db/database.ts';
import { derivedObjectId } from '../../db/derived-object-id.ts';
import { recordEvent, type EventRow } from '../events/event-feed.ts';
import { groupInsertInto } from '../../db/group-insert.ts';
import { LogEvent } from '../../logging/events.ts';
import type { Logger } from '../../logging/logger.ts';
import { queueWrittenAttempts, type WebhookDeliveryJobs } from './delivery-jobs.ts';
import { endpointsTopic } from './webhook-endpoints.ts';
import type { WebhookEventBody, WebhookEventData, WebhookEventType } from './webhook-events.ts';

/** The port the domain tells events through (publishing, channels, media). */
export interface WebhookEvents {
  /**
   * Records the event in the organization's events feed (GET /events) and for every endpoint of
   * the organization subscribed to it. Never throws:
   * what is being reported already happened, and must not be undone or retried because the
   * outbox could not be written; that failure is logged instead.
   */
  emit<T extends WebhookEventType>(
    organizationId: string,
    type: T,
    data: WebhookEventData[T],
    options?: EmitOptions,
  ): Promise<void>;
  /**
   * The organization's endpoints, read ahead by a step that will emit later (a publish reads them
   * with the post, so its event costs one write); null when they could not be read (emit reads again).
   */
  endpointsOf(organizationId: string): Promise<OrganizationEndpoints | null>;
}

export interface EmitOptions {
  /** The organization's endpoints read ahead (endpointsOf); null or absent reads them. */
  endpoints?: OrganizationEndpoints | null;
  /**
   * The id of the fact the event reports (derivedObjectId), for an event a step may emit again
   * (a publish job run twice): the event and its deliveries get ids derived from it, so the
   * second emit writes nothing. Absent, every emit is an event of its own.
   */
  once?: Types.ObjectId;
}

/** A delivery record exactly as emitting writes it. */
interface DeliveryDocument {
  _id: Types.ObjectId;
  organizationId: Types.ObjectId;
  endpointId: Types.ObjectId;
  event: WebhookEventType;
  eventId: string;
  body: string;
  status: 'pending';
  attempt: number;
  nextAttemptAt: Date;
  leaseUntil: null;
  attempts: [];
  resentFrom: null;
  createdAt: Date;
  updatedAt: Date;
}

/** An organization's webhook endpoints as read for an emit. */
export interface OrganizationEndpoints {
  organizationId: string;
  endpoints: readonly { _id: Types.ObjectId; events: readonly string[] }[];
  /** When the read began (the outbox's clock, ms): a step that emits later tells how old they are. */
  readAt: number;
}

export interface WebhookOutboxDeps {
  db: Database;
  logger: Logger;
  now: () => Date;
  /**
   * How long one organization's endpoints, once read, are handed to the next steps that read them
   * ahead (0: every read goes to the database). The workers' publishes of one organization's
   * burst then read them once; what an emit may use stays bounded by the reader's own limit.
   */
  reuseEndpointsMs?: number;
  /**
   * Where an api process keeps each organization's endpoints for every emit, dropped on every
   * process when they change (`webhooks:<organization>` on the cache bus): every POST /posts tells
   * post.created, and reading the endpoints each time was a third of its database commands.
   * In place of `reuseEndpointsMs`.
   */
  cache?: InvalidatedCache<OrganizationEndpoints>;
  /**
   * Where each written delivery's first attempt is queued at once. Without it (tests of the
   * outbox alone) deliveries wait for the dispatcher, which queues them once overdue by its grace.
   */
  jobs?: WebhookDeliveryJobs;
}

/**
 * Emitting writes the event's row in the events feed (GET /events) and, for each endpoint
 * subscribed to it, a delivery record to MongoDB (the outbox), then queues one job per delivery,
 * and calls no one: the webhook workers send them, so a slow or failing receiver never holds up
 * the step that emitted. The record comes first, so a crash or a Redis away between the two
 * leaves a delivery without a job, which the dispatcher queues once overdue, never a job without
 * its delivery.
 */
export class WebhookOutbox implements WebhookEvents {
  readonly #deps: WebhookOutboxDeps;
  readonly #recent: RecentReads<OrganizationEndpoints>;

  constructor(deps: WebhookOutboxDeps) {
    this.#deps = deps;
    this.#recent = new RecentReads(deps.reuseEndpointsMs ?? 0);
  }

  endpointsOf(organizationId: string): Promise<OrganizationEndpoints | null> {
    if (this.#deps.cache !== undefined) return this.#currentEndpoints(organizationId);
    return this.#recent.get(organizationId, () => this.#readEndpoints(organizationId));
  }

  /**
   * The endpoints as they are now: through the invalidated cache where there is one (it drops them
   * on every change), else read. Never a read handed on by time alone: that is for read-ahead only.
   */
  #currentEndpoints(organizationId: string): Promise<OrganizationEndpoints | null> {
    const { cache } = this.#deps;
    if (cache === undefined) return this.#readEndpoints(organizationId);
    return cache.get(organizationId, async () => {
      const read = await this.#readEndpoints(organizationId);
      const topics: CacheTopic[] = [endpointsTopic(organizationId), `organization:${organizationId}`];
      return read === null ? null : { value: read, topics };
    });
  }

  async #readEndpoints(organizationId: string): Promise<OrganizationEndpoints | null> {
    const readAt = this.#deps.now().getTime();
    try {
      // Equality on the organization only (at most 20 endpoints): filtering the events in the emit
      // keeps the query to one FerretDB pushes down. The driver's find: every publish reads them.
      const endpoints = await this.#deps.db.webhookEndpoints.collection
        .find<OrganizationEndpoints['endpoints'][number]>(
          { organizationId: new Types.ObjectId(organizationId) },
          { projection: { events: 1 } },
        )
        .toArray();
      return { organizationId, endpoints, readAt };
    } catch (error) {
      this.#deps.logger.warn(
        { event: LogEvent.webhookNotRecorded, organizationId, err: error },
        'reading the webhook endpoints ahead failed; the emit reads them again',
      );
      return null;
    }
  }

  async emit<T extends WebhookEventType>(
    organizationId: string,
    type: T,
    data: WebhookEventData[T],
    options: EmitOptions = {},
  ): Promise<void> {
    const { endpoints: known = null, once } = options;
    // Without `once` the event's id and its feed row's are the same fresh ObjectId.
    const rowId = new Types.ObjectId();
    const eventId = `evt_${(once ?? rowId).toHexString()}`;
    const now = this.#deps.now();
    const event: WebhookEventBody<T> = { id: eventId, type, createdAt: now.toISOString(), organizationId, data };
    const body = JSON.stringify(event);
    await Promise.all([
      this.#recordInFeed({ _id: rowId, eventId, type, body, createdAt: now }, organizationId, once !== undefined),
      this.#writeDeliveries({ organizationId, type, eventId, body, now, known, once }),
    ]);
  }

  /** The event's row in GET /events, written whether or not an endpoint subscribed to it. */
  async #recordInFeed(
    row: Omit<EventRow, 'organizationId'>,
    organizationId: string,
    repeatable: boolean,
  ): Promise<void> {
    try {
      await recordEvent(this.#deps.db, { ...row, organizationId: new Types.ObjectId(organizationId) }, repeatable);
    } catch (error) {
      this.#deps.logger.error(
        {
          event: LogEvent.webhookNotRecorded, webhookEvent: row.type, eventId: row.eventId, organizationId, err: error,
        },
        'the event could not be written to the events feed; GET /events will not list it',
      );
    }
  }

  async #writeDeliveries(emitted: {
    organizationId: string;
    type: WebhookEventType;
    eventId: string;
    body: string;
    now: Date;
    known: OrganizationEndpoints | null;
    once: Types.ObjectId | undefined;
  }): Promise<void> {
    const { db, logger } = this.#deps;
    const { organizationId, type, eventId, body, now, known, once } = emitted;
    try {
      const owner = new Types.ObjectId(organizationId);
      // Without endpoints read ahead, as they are now: a read handed on is for the steps that read ahead.
      const read = known?.organizationId === organizationId ? known : await this.#currentEndpoints(organizationId);
      if (read === null) throw new Error('the webhook endpoints could not be read');
      const subscribed = read.endpoints.filter((endpoint) => endpoint.events.includes(type));
      if (subscribed.length === 0) return;
      const deliveries = subscribed.map((endpoint): DeliveryDocument => ({
        _id: once === undefined
          ? new Types.ObjectId()
          : derivedObjectId(once.getTimestamp(), eventId, endpoint._id.toHexString()),
        organizationId: owner,
        endpointId: endpoint._id,
        event: type,
        eventId,
        body,
        status: 'pending',
        attempt: 0,
        nextAttemptAt: now,
        leaseUntil: null,
        attempts: [],
        resentFrom: null,
        createdAt: now,
        updatedAt: now,
      }));
      await insertDeliveries(db, deliveries, once !== undefined);
      // An event emitted again queues its deliveries again: their jobs (same ids) add nothing, or
      // claim nothing when the delivery moved on.
      if (this.#deps.jobs !== undefined) {
        const attempts = deliveries.map((delivery) => ({
          deliveryId: delivery._id.toHexString(), attempt: 0, dueAt: now,
        }));
        await queueWrittenAttempts(this.#deps.jobs, attempts, logger.child({ webhookEvent: type, eventId }));
      }
    } catch (error) {
      logger.error(
        { event: LogEvent.webhookNotRecorded, webhookEvent: type, eventId, organizationId, err: error },
        'the event could not be written to the webhook outbox; its deliveries will not be made',
      );
    }
  }
}

/**
 * Written whole with the driver, together with what concurrent emits write (GroupInsert): every
 * publish emits. When deliveries may exist already (an event emitted again) the duplicates are
 * refused one by one and the others, for an endpoint added since, still written.
 */
async function insertDeliveries(db: Database, deliveries: DeliveryDocument[], repeatable: boolean): Promise<void> {
  await groupInsertInto(db.webhookDeliveries.collection).insert(deliveries, { duplicatesWritten: repeatable });
}
