import type { Types } from 'mongoose';

/** A document read in date order: its id, and the date it is ordered by. */
export interface DatedDocument {
  _id: Types.ObjectId;
}

/**
 * Reads one page: the documents dated `from` or later (all when null), up to the cutoff the
 * caller holds, sorted by date then `_id`, at most `limit`.
 */
export type DatedPageReader<T extends DatedDocument> = (from: Date | null, limit: number) => Promise<T[]>;

/**
 * Every document a range query returns, in pages of `pageSize`, each page read from the index
 * where the last one ended. A page continues from the last date seen with `$gte` (no `$or`:
 * docs/queries.md), skipping the documents already handed out at exactly that date, its limit
 * grown by their number so it always brings something new. Each document is handed out once,
 * so the reads are proportional to what the range holds, never to what comes before it.
 */
export async function* dateOrderedPages<T extends DatedDocument>(
  read: DatedPageReader<T>,
  dateOf: (document: T) => Date,
  pageSize: number,
): AsyncGenerator<T[]> {
  let from: Date | null = null;
  let handledAtFrom = new Set<string>();
  for (;;) {
    const limit = pageSize + handledAtFrom.size;
    const page = await read(from, limit);
    const fresh = page.filter((document) => !handledAtFrom.has(document._id.toHexString()));
    if (fresh.length > 0) yield fresh;
    const last = fresh.at(-1);
    if (last === undefined || page.length < limit) return;
    const lastDate = dateOf(last).getTime();
    const atLast = fresh
      .filter((document) => dateOf(document).getTime() === lastDate)
      .map((document) => document._id.toHexString());
    handledAtFrom = from?.getTime() === lastDate ? new Set([...handledAtFrom, ...atLast]) : new Set(atLast);
    from = dateOf(last);
  }
}
