import type { Types } from 'mongoose';
import type { Post, PostState } from '../../db/models/post.ts';
import type { ChannelPostInput } from './post-input.ts';
import type { Recurrence } from './recurrence-rule.ts';

type ScalarFields = Omit<Post, 'media' | 'tags' | 'settings' | 'attempts'>;

/**
 * A post part exactly as stored: every field of the schema required (a new field must be given
 * here), defaults and timestamps included.
 */
export type PostDocument = { [K in keyof ScalarFields]-?: Exclude<ScalarFields[K], undefined> } & {
  _id: Types.ObjectId;
  media: { id: string; path: string; alt: string | null; thumbnail: string | null }[];
  tags: { value: string; label: string }[];
  settings: Record<string, unknown>;
  /** Failed publish attempts (shared/domain/publishing/failed-attempts.ts): none yet. */
  attempts: never[];
  createdAt: Date;
  updatedAt: Date;
};

/** What the parts of one channel post share. */
export interface PostFields {
  organizationId: Types.ObjectId;
  channelId: Types.ObjectId;
  group: string;
  settings: Record<string, unknown>;
  tags: { value: string; label: string }[];
  publishDate: Date;
  /** The bucket the recovery sweep finds the post in (due-bucket.ts), written with publishDate. */
  dueHour: number;
  state: PostState;
  /** Recurring posts: the series, the occurrence's number and how it repeats (recurrence-series.ts); else null. */
  seriesId?: string | null;
  occurrence?: number | null;
  repeat?: Recurrence | null;
}

/**
 * The documents of one channel post: its root (`rootId`) and its thread parts. Built whole, so
 * they are written with the driver's insert: POST /posts is the api's busiest write, and
 * Mongoose's document machinery (casting, validation, change tracking) cost more CPU than the
 * insert itself. The type lists every schema field, so a new one cannot be forgotten here; the
 * values were validated at the API boundary (zod) and by the platform rules.
 */
export function postDocuments(
  input: ChannelPostInput,
  rootId: Types.ObjectId,
  fields: PostFields,
  newId: () => Types.ObjectId,
  now: Date,
): PostDocument[] {
  return input.value.map((part, position) => ({
    ...fields,
    _id: position === 0 ? rootId : newId(),
    rootPostId: position === 0 ? null : rootId,
    position,
    content: part.content,
    media: part.image.map((image) => ({
      id: image.id, path: image.path, alt: image.alt ?? null, thumbnail: image.thumbnail ?? null,
    })),
    delayMinutes: position === 0 ? 0 : (part.delay ?? 0),
    replyCount: position === 0 ? input.value.length - 1 : null,
    releaseId: null,
    releaseURL: null,
    publishedAt: null,
    error: null,
    failureCategory: null,
    attempts: [],
    checkpoint: null,
    deletedAt: null,
    removal: null,
    removalPending: false,
    removalRecoveries: 0,
    publishRecoveries: 0,
    partsPublishedAtRecovery: 0,
    notifiedAt: null,
    seriesId: fields.seriesId ?? null,
    occurrence: fields.occurrence ?? null,
    repeat: fields.repeat ?? null,
    createdAt: now,
    updatedAt: now,
  }));
}
