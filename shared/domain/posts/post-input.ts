/**
 * Plain input of post creation, as the api's zod schema produces it. `queue`: each post takes its
 * channel's next free posting slot (channels/find-slot.ts takeQueueSlots).
 */
export type CreatePostType = 'draft' | 'schedule' | 'now' | 'update' | 'queue';

export interface MediaReference {
  id: string;
  path: string;
  alt?: string | undefined;
  thumbnail?: string | undefined;
}

export interface PostPartInput {
  /** On the first part: the id of an existing post to edit instead of creating one. */
  id?: string | undefined;
  content: string;
  /** Minutes after the previous part; ignored on the first part. */
  delay?: number | undefined;
  image: MediaReference[];
}

export interface ChannelPostInput {
  integration: { id: string };
  group?: string | undefined;
  settings?: Record<string, unknown> | undefined;
  value: PostPartInput[];
}

export interface CreatePostsInput {
  type: CreatePostType;
  /** Required for `schedule`; `now` and `draft` default to the current time; `queue`: no slot before it. */
  date?: Date | undefined;
  tags: { value: string; label: string }[];
  posts: ChannelPostInput[];
  /** Recurring posts (recurrence-series.ts): every N days at the same local time, until the series is deleted. */
  intervalInDays?: number | undefined;
  /** Recurring posts: an RFC 5545 rule read in the channel's time zone, bounded by `until` or `count`. */
  repeat?: { rule: string; until?: Date | undefined; count?: number | undefined } | undefined;
  /** Replace each http(s) link by SPS's own counted short link (shared/domain/short-links/). */
  shortLink?: boolean | undefined;
}

export interface CreatedPost {
  postId: string;
  integration: string;
}
