import type { Model, Types, UpdateQuery } from 'mongoose';

/**
 * Queries shaped for every server SPS runs on. The embedded FerretDB answers from an index only
 * when a filter is plain equality on indexed fields: `$or` and `$in` make it read the whole
 * collection (docs/queries.md). MongoDB answers these shapes from the same indexes.
 */

/**
 * The documents with these ids that also match `filter`, in the order of `ids` (each once),
 * missing ones left out. One `_id` equality query per id, sent together: ids come from one
 * request, one post or one user (a handful), so this costs one round trip and stays indexed.
 */
export async function findEachById<T>(
  model: Model<T>,
  ids: readonly Types.ObjectId[],
  filter: Record<string, unknown> = {},
): Promise<(T & { _id: Types.ObjectId })[]> {
  const distinct = [...new Map(ids.map((id) => [id.toHexString(), id])).values()];
  const found = await Promise.all(
    distinct.map((id) => model.findOne({ ...filter, _id: id }).lean<T & { _id: Types.ObjectId }>()),
  );
  return found.filter((document) => document !== null);
}

/** A thread is its root part plus the parts whose `rootPostId` is the root: two indexed equalities. */
export function threadFilters(rootId: Types.ObjectId): [{ _id: Types.ObjectId }, { rootPostId: Types.ObjectId }] {
  return [{ _id: rootId }, { rootPostId: rootId }];
}

/** updateMany over a whole thread (root and replies) without `$or`; answers the documents modified. */
export async function updateThread<T>(
  model: Model<T>,
  rootId: Types.ObjectId,
  filter: Record<string, unknown>,
  update: UpdateQuery<T>,
): Promise<number> {
  const results = await Promise.all(
    threadFilters(rootId).map((part) => model.updateMany({ ...filter, ...part }, update)),
  );
  return results.reduce((total, result) => total + result.modifiedCount, 0);
}
