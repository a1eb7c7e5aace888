import { Schema, Types, type Connection, type InferSchemaType, type Model } from 'mongoose';

/** Wire values of a post's state, as clients of this kind of service already read them. */
export const postStates = ['DRAFT', 'QUEUE', 'PUBLISHED', 'ERROR'] as const;
export type PostState = (typeof postStates)[number];

const mediaRefSchema = new Schema(
  {
    id: { type: String, required: true },
    path: { type: String, required: true },
    alt: { type: String, default: null },
    thumbnail: { type: String, default: null },
  },
  { _id: false },
);

/** One failed publish attempt at a part (FailedAttempt). */
const attemptSchema = new Schema(
  {
    at: { type: Date, required: true },
    category: { type: String, required: true },
    message: { type: String, required: true },
    httpStatus: { type: Number, default: null },
  },
  { _id: false },
);

/** How a recurring post's series repeats (shared/domain/posts/recurrence-rule.ts Recurrence), on each occurrence. */
const repeatSchema = new Schema(
  {
    intervalInDays: { type: Number, default: null },
    rule: { type: String, default: null },
    until: { type: Date, default: null },
    count: { type: Number, default: null },
    startAt: { type: Date, required: true },
  },
  { _id: false },
);

/**
 * What DELETE /posts/:id?onPlatform=true did with one part on its platform
 * (shared/domain/removal/): its state (removal-states.ts) and, once settled, why and when.
 */
const removalSchema = new Schema(
  {
    state: { type: String, required: true },
    /** The platform's way (delete, unpublish, trash) where it removes; null otherwise. */
    method: { type: String, default: null },
    /** Why the part is not removed: unsupported, not published, unconfirmed. */
    reason: { type: String, default: null },
    /** A failed removal: its failure category and the platform's message. */
    category: { type: String, default: null },
    message: { type: String, default: null },
    httpStatus: { type: Number, default: null },
    /** When the state was last written. */
    at: { type: Date, required: true },
  },
  { _id: false },
);

const tagSchema = new Schema({ value: { type: String, required: true }, label: { type: String, required: true } }, { _id: false });

/**
 * One part of a post on one channel. The root part (position 0) carries the schedule; the parts
 * after it are the thread replies or comments, published in order, each `delayMinutes` after
 * the previous one.
 */
const postSchema = new Schema(
  {
    organizationId: { type: Types.ObjectId, required: true },
    channelId: { type: Types.ObjectId, required: true },
    /** Posts created together share a group, across channels. */
    group: { type: String, required: true },
    rootPostId: { type: Types.ObjectId, default: null },
    position: { type: Number, required: true, min: 0 },
    content: { type: String, default: '' },
    media: { type: [mediaRefSchema], default: [] },
    settings: { type: Schema.Types.Mixed, default: {} },
    tags: { type: [tagSchema], default: [] },
    publishDate: { type: Date, required: true },
    /**
     * The due bucket (shared/domain/posts/due-bucket.ts): whole hours since the epoch of when the
     * publish job falls due, written with publishDate whenever a post is queued or moved, so the
     * recovery sweep reads queued posts one hour at a time by equality. Null on posts stored
     * before it existed: the sweep's full pass, when the workers start, fills those still queued.
     */
    dueHour: { type: Number, default: null },
    delayMinutes: { type: Number, default: 0, min: 0 },
    state: { type: String, enum: postStates, required: true },
    releaseId: { type: String, default: null },
    releaseURL: { type: String, default: null },
    publishedAt: { type: Date, default: null },
    error: { type: String, default: null },
    /**
     * Why the part failed, one of failureCategories (shared/domain/publishing/failure-category.ts);
     * null unless ERROR.
     */
    failureCategory: { type: String, default: null },
    /** Its last failed publish attempts, oldest first (shared/domain/publishing/failed-attempts.ts). */
    attempts: { type: [attemptSchema], default: [] },
    /** What the adapter saved between attempts at this part (PartCheckpoint): media ids, container ids. */
    checkpoint: { type: Schema.Types.Mixed, default: null },
    deletedAt: { type: Date, default: null },
    /** Set by DELETE /posts/:id?onPlatform=true on each part: taking it off its platform. Null otherwise. */
    removal: { type: removalSchema, default: null },
    /**
     * Root only: true while a removal job has parts to settle, so the removal sweep finds them by
     * one indexed equality (FerretDB pushes no query on `removal.state` down); false otherwise.
     */
    removalPending: { type: Boolean, default: false },
    /** Root only: times the removal was queued again after its job was lost or failed unsettled. */
    removalRecoveries: { type: Number, default: 0, min: 0 },
    /** Root only: times the post was put back in the queue after its job was lost or failed unsettled. */
    publishRecoveries: { type: Number, default: 0, min: 0 },
    /**
     * Root only: the thread's parts published when it was last put back in the queue. A recovery
     * after more were published counts `publishRecoveries` afresh.
     */
    partsPublishedAtRecovery: { type: Number, default: 0, min: 0 },
    /**
     * Root only: how many parts follow it, written with the parts, so publishing a post of one part
     * (most posts) skips the replies query. Null on replies, and on roots stored before it existed
     * (their replies are read).
     */
    replyCount: { type: Number, default: null, min: 0 },
    /**
     * Root only: when the organization was told the whole thread was published. Written until the
     * notification and the event took ids derived from the publication (told once without it);
     * still read, so a post told before that is not told again.
     */
    notifiedAt: { type: Date, default: null },
    /**
     * Recurring posts, on each part: the series the post is an occurrence of (the first
     * occurrence's id), its number in it (1 for the first) and how the series repeats. Null on
     * other posts.
     */
    seriesId: { type: String, default: null },
    occurrence: { type: Number, default: null, min: 1 },
    repeat: { type: repeatSchema, default: null },
  },
  { timestamps: true, collection: 'posts' },
);
postSchema.index({ organizationId: 1, publishDate: 1 });
postSchema.index({ rootPostId: 1, position: 1 });
// A channel's posts (find-slot, deleting a channel) and a group's posts (DELETE /posts/group/:group).
postSchema.index({ channelId: 1, publishDate: 1 });
postSchema.index({ organizationId: 1, group: 1 });
// A recurring post's occurrences (DELETE /posts/:id?series=true).
postSchema.index({ organizationId: 1, seriesId: 1 });
// The publish sweep (shared/domain/publishing/recover-publications.ts): each minute, equalities on state and
// the due bucket (FerretDB hands PostgreSQL only equalities); its full pass, equality on state, a range on publishDate.
postSchema.index({ state: 1, dueHour: 1 });
postSchema.index({ state: 1, publishDate: 1 });
// The removal sweep (shared/domain/removal/recover-removals.ts): roots with parts still to remove.
postSchema.index({ removalPending: 1 });

export type Post = InferSchemaType<typeof postSchema>;
export type PostModel = Model<Post>;

export function postModel(connection: Connection): PostModel {
  return (connection.models.Post as PostModel | undefined) ?? connection.model('Post', postSchema);
}
