import { Types } from 'mongoose';
import type { Database } from '../../db/database.ts';
import { groupInsertInto } from '../../db/group-insert.ts';

/** Fixed by the spec: clients cannot ask for another page size. */
export const notificationsPerPage = 100;

export interface NotificationView {
  id: string;
  content: string;
  link: string | null;
  createdAt: string;
}

export interface NotificationsPage {
  notifications: NotificationView[];
  total: number;
  page: number;
  limit: number;
  hasMore: boolean;
}

/** A notification exactly as stored. */
interface NotificationDocument {
  _id: Types.ObjectId;
  organizationId: Types.ObjectId;
  content: string;
  link: string | null;
  createdAt: Date;
}

/**
 * Tells the organization something. `once` is the id of the fact told (derivedObjectId): telling
 * it again, from a job run twice, writes nothing. Written whole with the driver, together with
 * what concurrent jobs tell (GroupInsert): a publish tells one on every post.
 */
export async function notify(
  db: Database,
  organizationId: string,
  message: { content: string; link?: string | null },
  once?: Types.ObjectId,
): Promise<void> {
  const document: NotificationDocument = {
    _id: once ?? new Types.ObjectId(),
    organizationId: new Types.ObjectId(organizationId),
    content: message.content,
    link: message.link ?? null,
    createdAt: new Date(),
  };
  await groupInsertInto(db.notifications.collection).insert([document], { duplicatesWritten: once !== undefined });
}

export async function listNotifications(db: Database, organizationId: string, page: number): Promise<NotificationsPage> {
  const filter = { organizationId: new Types.ObjectId(organizationId) };
  const [total, rows] = await Promise.all([
    db.notifications.countDocuments(filter),
    db.notifications
      .find(filter)
      .sort({ createdAt: -1, _id: -1 })
      .skip(page * notificationsPerPage)
      .limit(notificationsPerPage)
      .lean(),
  ]);
  return {
    notifications: rows.map((row) => ({
      id: row._id.toString(),
      content: row.content,
      link: row.link ?? null,
      createdAt: row.createdAt.toISOString(),
    })),
    total,
    page,
    limit: notificationsPerPage,
    hasMore: (page + 1) * notificationsPerPage < total,
  };
}
