import { Types } from 'mongoose';
import type { Database } from '../../db/database.ts';
import { LogEvent } from '../../logging/events.ts';
import type { Logger } from '../../logging/logger.ts';
import type { WebhookEventBody, WebhookEventData, WebhookEventType } from './webhook-events.ts';

/** The port the domain tells events through (publishing, channels, media). */
export interface WebhookEvents {
  /**
   * Records the event for every endpoint of the organization subscribed to it. Never throws:
   * what is being reported already happened, and must not be undone or retried because the
   * outbox could not be written; that failure is logged instead.
   */
  emit<T extends WebhookEventType>(
    organizationId: string,
    type: T,
    data: WebhookEventData[T],
    endpoints?: OrganizationEndpoints | null,
  ): Promise<void>;
  /**
   * The organization's endpoints, read ahead by a step that will emit later (a publish reads them
   * with the post, so its event costs one write); null when they could not be read (emit reads again).
   */
  endpointsOf(organizationId: string): Promise<OrganizationEndpoints | null>;
}

/** An organization's webhook endpoints as read for an emit. */
export interface OrganizationEndpoints {
  organizationId: string;
  endpoints: readonly { _id: Types.ObjectId; events: readonly string[] }[];
}

/**
 * Emitting writes delivery records to MongoDB (the outbox) and calls no one: the webhook
 * workers send them, so a slow or failing receiver never holds up the step that emitted.
 */
export class WebhookOutbox implements WebhookEvents {
  readonly #deps: { db: Database; logger: Logger; now: () => Date };

  constructor(deps: { db: Database; logger: Logger; now: () => Date }) {
    this.#deps = deps;
  }

  async endpointsOf(organizationId: string): Promise<OrganizationEndpoints | null> {
    try {
      // Equality on the organization only (at most 20 endpoints): filtering the events in the emit
      // keeps the query to one FerretDB pushes down.
      const endpoints = await this.#deps.db.webhookEndpoints
        .find({ organizationId: new Types.ObjectId(organizationId) }, { events: 1 })
        .lean();
      return { organizationId, endpoints };
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
    known: OrganizationEndpoints | null = null,
  ): Promise<void> {
    const { db, logger } = this.#deps;
    const eventId = `evt_${new Types.ObjectId().toHexString()}`;
    try {
      const owner = new Types.ObjectId(organizationId);
      const read = known?.organizationId === organizationId ? known : await this.endpointsOf(organizationId);
      if (read === null) throw new Error('the webhook endpoints could not be read');
      const subscribed = read.endpoints.filter((endpoint) => endpoint.events.includes(type));
      if (subscribed.length === 0) return;
      const now = this.#deps.now();
      const event: WebhookEventBody<T> = { id: eventId, type, createdAt: now.toISOString(), organizationId, data };
      const body = JSON.stringify(event);
      await db.webhookDeliveries.insertMany(subscribed.map((endpoint) => ({
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
      })));
    } catch (error) {
      logger.error(
        { event: LogEvent.webhookNotRecorded, webhookEvent: type, eventId, organizationId, err: error },
        'the event could not be written to the webhook outbox; its deliveries will not be made',
      );
    }
  }
}
