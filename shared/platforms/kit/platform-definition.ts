import type { z } from 'zod';

export const platformGroups = ['social', 'video', 'community', 'design', 'blogging', 'business'] as const;
export type PlatformGroup = (typeof platformGroups)[number];

/**
 * How a platform measures a post's text:
 * - code-points: characters as most platforms (and Ruby, Python) count them;
 * - graphemes: user-perceived characters (Bluesky);
 * - x-weighted: X's weighting, URLs as 23 and CJK / emoji as 2 (twitter-text);
 * - utf8-bytes: bytes on the wire (Farcaster casts);
 * - utf16-units: UTF-16 code units, as JavaScript's `length` (TikTok's captions);
 * - mastodon: graphemes, URLs as 23, `@user@domain` as `@user` (mastodon-text-length.ts).
 */
export type TextCounting = 'code-points' | 'graphemes' | 'x-weighted' | 'utf8-bytes' | 'utf16-units' | 'mastodon';

/** What the registry needs to know of one attached media item. */
export interface MediaFacts {
  kind: 'image' | 'video';
  mimeType: string;
  width: number | null;
  height: number | null;
  durationSeconds: number | null;
  /** Bytes stored; null while an import by URL is still fetching it. */
  sizeBytes: number | null;
  /** Known once the media worker has inspected a video (ffprobe names: h264, hevc, aac...). */
  videoCodec?: string | null;
  audioCodec?: string | null;
  frameRate?: number | null;
}

export interface PostPartFacts {
  text: string;
  media: MediaFacts[];
}

export interface ToolField {
  key: string;
  type: 'string' | 'number' | 'boolean';
  description: string;
}

/** A request/response helper a platform offers (list subreddits' flairs, Pinterest boards...). */
export interface ToolDefinition {
  methodName: string;
  description: string;
  dataSchema: ToolField[];
}

interface PlatformFacts {
  identifier: string;
  displayName: string;
  group: PlatformGroup;
  /** Longest text of one post part, counted as `textCounting` says. */
  textLimit: number;
  /**
   * Where the limit depends on the post's media, the limit for these parts (TikTok: 2,200 for a
   * video's caption, 4,000 for a photo post's description); `textLimit` otherwise.
   */
  textLimitFor?: (parts: PostPartFacts[]) => number;
  textCounting: TextCounting;
  /** What parts after the first become: a thread of own replies, comments, or nothing (refused). */
  replies: 'thread' | 'comment' | 'none';
  /** One sentence on media, shown to API users and in error messages. */
  mediaRules: string;
  /** A short paragraph of the platform's rules for API users. */
  rules: string;
  tools: ToolDefinition[];
  /**
   * The platform fetches attached files from their public URL instead of receiving the bytes:
   * all of them (true), or only images where videos are uploaded (TikTok pulls photos only).
   */
  mediaByUrl?: true | 'images';
  /**
   * Publishes to this platform one worker process has calling it at once
   * (shared/domain/publishing/platform-call-slots.ts), where the platform limits the whole app,
   * every account SPS publishes for together. A rate becomes a count as a quarter of the calls
   * it allows a second (a call takes about a quarter second), rounded down, at least 1. Unset:
   * half of the process's slots (PUBLISH_CONCURRENCY). Each account is bounded apart
   * (PUBLISH_ACCOUNT_CONCURRENCY).
   */
  concurrentCalls?: number;
  /**
   * The same for publishes that send a video, which take slots of a pool of their own; unset: half
   * of that pool. Set where the app's allowance is so small that its uploads must share it too.
   */
  concurrentUploads?: number;
}

/** How a platform file declares itself: its settings schema keeps its own type inside checkPost. */
export interface PlatformSpec<Settings extends z.ZodObject> extends PlatformFacts {
  /** The platform's post settings; null when it has none. Unknown keys are stripped. */
  settings: Settings | null;
  /**
   * Rules beyond the text limit (media count and kind, settings that depend on media...).
   * Gets settings already parsed by `settings`, and the text limit in force (the channel's own where
   * it has one); returns one sentence per broken rule.
   */
  checkPost(post: { settings: z.output<Settings>; parts: PostPartFacts[]; textLimit: number }): string[];
}

/** The registry's uniform view of a platform. */
export interface PlatformDefinition extends PlatformFacts {
  settings: z.ZodObject | null;
  checkPost(post: { settings: Record<string, unknown>; parts: PostPartFacts[]; textLimit: number }): string[];
}

export function definePlatform<Settings extends z.ZodObject>(spec: PlatformSpec<Settings>): PlatformDefinition {
  return {
    ...spec,
    // validatePlatformPost always parses with `spec.settings` before calling, so the cast holds.
    checkPost: (post) => spec.checkPost({ ...post, settings: post.settings as z.output<Settings> }),
  };
}

/** Shared wording so every platform phrases media problems the same way. */
export function countMedia(parts: PostPartFacts[], partIndex = 0): { images: number; videos: number; total: number } {
  const media = parts[partIndex]?.media ?? [];
  const videos = media.filter((item) => item.kind === 'video').length;
  return { images: media.length - videos, videos, total: media.length };
}
