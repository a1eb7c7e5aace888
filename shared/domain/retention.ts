import type { Database } from '../db/database.ts';
import { deleteOldEvents } from './events/event-feed.ts';

/** How long an organization's history is kept, in days (NOTIFICATION_RETENTION_DAYS...). */
export interface RetentionDays {
  notifications: number;
  /** Deliveries that ended (delivered, or failed after every attempt); pending ones are never removed. */
  webhookDeliveries: number;
  /** The events feed (GET /events, EVENT_RETENTION_DAYS). */
  events: number;
}

/**
 * Removes notifications and ended webhook deliveries older than their retention. Both grow with
 * every publish; kept forever, `GET /notifications`' count and the delivery log would read an
 * organization's whole history on every page.
 */
const before = (now: Date, days: number): Date => new Date(now.getTime() - days * 86_400_000);

export async function deleteOldHistory(
  db: Database,
  now: Date,
  days: RetentionDays,
): Promise<{ notifications: number; webhookDeliveries: number; events: number }> {
  const notifications = await db.notifications.deleteMany({ createdAt: { $lt: before(now, days.notifications) } });
  const deliveries = await db.webhookDeliveries.deleteMany({
    status: { $in: ['delivered', 'failed'] },
    updatedAt: { $lt: before(now, days.webhookDeliveries) },
  });
  const events = await deleteOldEvents(db, now, days.events);
  return { notifications: notifications.deletedCount, webhookDeliveries: deliveries.deletedCount, events };
}
