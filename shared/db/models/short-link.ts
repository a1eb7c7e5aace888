import { Schema, Types, type Connection, type InferSchemaType, type Model } from 'mongoose';

/**
 * One link of a post created with `shortLink: true`, replaced in the post's content by
 * `<public base>/l/<code>` (shared/domain/short-links/). Each channel post has its own codes, so
 * clicks are counted per post and channel.
 */
const shortLinkSchema = new Schema(
  {
    code: { type: String, required: true },
    organizationId: { type: Types.ObjectId, required: true },
    /** The root post (first part) the link is in. */
    postId: { type: Types.ObjectId, required: true },
    channelId: { type: Types.ObjectId, required: true },
    /** The position of the part whose content first carried the link (0: the post itself). */
    part: { type: Number, required: true },
    /** The original http(s) address the code redirects to. */
    target: { type: String, required: true },
    /** Redirects answered, counted with an atomic $inc by GET /l/:code. */
    clicks: { type: Number, default: 0 },
    createdAt: { type: Date, required: true },
  },
  { collection: 'short_links' },
);
// What GET /l/:code looks up; unique so no two links ever share a code.
shortLinkSchema.index({ code: 1 }, { unique: true });
// What GET /posts/:id reads: a post's links, in the organization.
shortLinkSchema.index({ postId: 1 });

export type ShortLink = InferSchemaType<typeof shortLinkSchema>;
export type ShortLinkModel = Model<ShortLink>;

export function shortLinkModel(connection: Connection): ShortLinkModel {
  return (connection.models.ShortLink as ShortLinkModel | undefined) ?? connection.model('ShortLink', shortLinkSchema);
}
