import { Schema, Types, type Connection, type InferSchemaType, type Model } from 'mongoose';

export const mediaStatuses = ['pending', 'ready', 'failed'] as const;

/** What a generated video was asked to be (POST /generate-video): the video worker makes it from this. */
const generationSchema = new Schema(
  {
    videoType: { type: String, required: true },
    output: { type: String, enum: ['vertical', 'horizontal'], required: true },
    /** The parameters as the video catalog accepted them; read again through it by the worker. */
    params: { type: Schema.Types.Mixed, required: true },
  },
  { _id: false },
);

/** How far a generation has got, for GET /media/:id while it is pending. */
const progressSchema = new Schema(
  {
    stage: { type: String, required: true },
    percent: { type: Number, required: true, min: 0, max: 100 },
  },
  { _id: false },
);

/** A file in an organization's media library. */
const mediaSchema = new Schema(
  {
    organizationId: { type: Types.ObjectId, required: true, index: true },
    name: { type: String, required: true },
    originalName: { type: String, default: null },
    /** Key inside the storage driver; `path` is its public URL. */
    storageKey: { type: String, default: null },
    path: { type: String, default: null },
    thumbnail: { type: String, default: null },
    thumbnailKey: { type: String, default: null },
    /** For upload-from-url: the address the worker fetches. */
    sourceUrl: { type: String, default: null },
    alt: { type: String, default: null },
    mimeType: { type: String, default: null },
    size: { type: Number, default: null },
    width: { type: Number, default: null },
    height: { type: Number, default: null },
    durationSeconds: { type: Number, default: null },
    videoCodec: { type: String, default: null },
    videoProfile: { type: String, default: null },
    audioCodec: { type: String, default: null },
    frameRate: { type: Number, default: null },
    bitRate: { type: Number, default: null },
    status: { type: String, enum: mediaStatuses, default: 'pending' },
    error: { type: String, default: null },
    /** Machine-readable cause of a failure, e.g. `fetch_failed:timeout`. */
    errorReason: { type: String, default: null },
    /** Set on videos SPS generates instead of receiving. */
    generation: { type: generationSchema, default: null },
    progress: { type: progressSchema, default: null },
  },
  { timestamps: true, collection: 'media' },
);

/**
 * A video's poster is named by the library image's path (POST /posts `image[].thumbnail`): found
 * by one equality on both fields, at POST /posts and when the post is published (post-posters.ts).
 */
mediaSchema.index({ organizationId: 1, path: 1 });

export type Media = InferSchemaType<typeof mediaSchema>;
export type MediaModel = Model<Media>;

export function mediaModel(connection: Connection): MediaModel {
  return (connection.models.Media as MediaModel | undefined) ?? connection.model('Media', mediaSchema);
}
