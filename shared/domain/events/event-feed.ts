import { Types } from 'mongoose';
import type { Database } from '../../db/database.ts';
import { groupInsertInto } from '../../db/group-insert.ts';

/** An event row exactly as emitting writes it (shared/db/models/event.ts). */
export interface EventRow {
  _id: Types.ObjectId;
  organizationId: Types.ObjectId;
  eventId: string;
  type: string;
  body: string;
  createdAt: Date;
}

/**
 * Written with the rows concurrent emits write (GroupInsert): every publish emits. An event that
 * may be emitted again (`repeatable`) counts as written when its eventId is refused as a duplicate.
 */
export async function recordEvent(db: Database, row: EventRow, repeatable: boolean): Promise<void> {
  await groupInsertInto(db.events.collection).insert([row], { duplicatesWritten: repeatable });
}

export const eventPageLimits = { default: 50, max: 100 } as const;

/**
 * Rows younger than this are not served yet. Ids are taken by each process when it writes, to the
 * second: an api and a worker writing in the same second (or a write slowed a moment) can put a
 * row with a lower id after one a client has already read past. Holding the newest seconds back
 * lets every such row land before the cursor passes it, at the price of events arriving 2 to 3
 * seconds late.
 */
export const eventSettleMs = 2_000;

export interface EventPage {
  events: unknown[];
  /** Where to continue: the last event's cursor, or the one given when there is nothing new. */
  cursor: string | null;
  /** True when the page is full: ask again with `cursor` at once. */
  hasMore: boolean;
}

/**
 * The organization's events after the cursor (all of them kept, without one), oldest first:
 * an equality on the organization and a range on `_id`, index `{organizationId, _id}`.
 */
export async function listEvents(
  db: Database,
  organizationId: string,
  query: { after: Types.ObjectId | null; limit: number },
  now: Date,
): Promise<EventPage> {
  const settled = Types.ObjectId.createFromTime(Math.floor((now.getTime() - eventSettleMs) / 1000));
  const range = query.after === null ? { $lt: settled } : { $gt: query.after, $lt: settled };
  const rows = await db.events.collection
    .find<Pick<EventRow, '_id' | 'body'>>(
      { organizationId: new Types.ObjectId(organizationId), _id: range },
      { projection: { body: 1 } },
    )
    .sort({ _id: 1 })
    .limit(query.limit + 1)
    .toArray();
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return {
    events: page.map((row) => ({ cursor: row._id.toHexString(), ...JSON.parse(row.body) as object })),
    cursor: last?._id.toHexString() ?? query.after?.toHexString() ?? null,
    hasMore: rows.length > query.limit,
  };
}

/** Removes events older than the retention: a range on `_id`, whose first bytes are when it was written. */
export async function deleteOldEvents(db: Database, now: Date, retentionDays: number): Promise<number> {
  const before = Types.ObjectId.createFromTime(Math.floor((now.getTime() - retentionDays * 86_400_000) / 1000));
  const removed = await db.events.deleteMany({ _id: { $lt: before } });
  return removed.deletedCount;
}
