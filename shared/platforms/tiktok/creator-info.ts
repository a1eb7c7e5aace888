import { z } from 'zod';
import type { PublishMedia } from '../kit/platform-adapter.ts';
import { PlatformError } from '../kit/platform-error.ts';
import type { tiktokSettings } from './definition.ts';
import { provider, type TikTokApi } from './tiktok-api.ts';

/**
 * TikTok's mandatory step before a Direct Post (oauth-majors.md 8.2, step 1): what the creator's
 * account allows now. SPS reads it before every direct post and holds the post to it: a privacy
 * level the account offers, comments, Duet and Stitch off where the creator turned them off, a
 * video no longer than the account may post.
 */

const creatorInfoAnswer = z.object({
  creator_avatar_url: z.string().optional(),
  creator_username: z.string().min(1),
  creator_nickname: z.string().optional(),
  privacy_level_options: z.array(z.string()),
  comment_disabled: z.boolean(),
  duet_disabled: z.boolean(),
  stitch_disabled: z.boolean(),
  max_video_post_duration_sec: z.number().int().positive(),
});

export type CreatorInfo = z.infer<typeof creatorInfoAnswer>;
type Settings = z.output<typeof tiktokSettings>;

export function readCreatorInfo(api: TikTokApi): Promise<CreatorInfo> {
  return api({ method: 'POST', path: '/v2/post/publish/creator_info/query/' }, creatorInfoAnswer, 'creator info');
}

/** The creatorInfo tool's answer: the same facts under the names SPS's API uses. */
export function creatorInfoView(info: CreatorInfo): Record<string, unknown> {
  return {
    username: info.creator_username,
    nickname: info.creator_nickname ?? null,
    avatarUrl: info.creator_avatar_url ?? null,
    privacyLevelOptions: info.privacy_level_options,
    commentDisabled: info.comment_disabled,
    duetDisabled: info.duet_disabled,
    stitchDisabled: info.stitch_disabled,
    maxVideoPostDurationSec: info.max_video_post_duration_sec,
  };
}

function refuse(message: string): PlatformError {
  return new PlatformError({ kind: 'permanent', provider, message: `TikTok: ${message}` });
}

/**
 * An interaction switch as sent: forced off where the creator turned it off (TikTok's sharing
 * guidelines), refused where the post explicitly asks to keep it on.
 */
function switchOff(asked: boolean | undefined, creatorOff: boolean, what: string, setting: string): boolean {
  if (!creatorOff) return asked ?? false;
  if (asked === false) {
    throw refuse(`the account has ${what} turned off, so ${setting} cannot be false; leave it out or set it to true`);
  }
  return true;
}

/** Refuses a post the account cannot make: privacy level not offered, video too long. */
export function checkAgainstCreator(info: CreatorInfo, settings: Settings, media: PublishMedia[]): void {
  if (!info.privacy_level_options.includes(settings.privacy_level)) {
    throw refuse(`privacy_level ${settings.privacy_level} is not one this account offers `
      + `(${info.privacy_level_options.join(', ')}); choose one of them (see the creatorInfo tool)`);
  }
  const video = media.find((item) => item.kind === 'video');
  const duration = video?.durationSeconds ?? null;
  if (duration !== null && duration > info.max_video_post_duration_sec) {
    throw refuse(`the video lasts ${String(Math.round(duration))} seconds; this account may post videos of at most `
      + `${String(info.max_video_post_duration_sec)} seconds`);
  }
}

/** post_info of a direct video post, held to what the creator allows. */
export function videoPostInfo(info: CreatorInfo, settings: Settings, caption: string): Record<string, unknown> {
  const cover = settings.video_cover_timestamp_ms;
  return {
    title: caption,
    privacy_level: settings.privacy_level,
    disable_comment: switchOff(settings.disable_comment, info.comment_disabled, 'comments', 'disable_comment'),
    disable_duet: switchOff(settings.disable_duet, info.duet_disabled, 'Duet', 'disable_duet'),
    disable_stitch: switchOff(settings.disable_stitch, info.stitch_disabled, 'Stitch', 'disable_stitch'),
    ...(cover === undefined ? {} : { video_cover_timestamp_ms: cover }),
    ...brandFields(settings),
    ...(settings.is_aigc === undefined ? {} : { is_aigc: settings.is_aigc }),
  };
}

/** post_info of a photo post: title, the text as description, comments held to the creator's switch. */
export function photoPostInfo(
  info: CreatorInfo | null,
  settings: Settings,
  description: string,
): Record<string, unknown> {
  const direct = info !== null;
  return {
    ...(settings.title === undefined ? {} : { title: settings.title }),
    description,
    ...(direct ? { privacy_level: settings.privacy_level } : {}),
    ...(direct
      ? { disable_comment: switchOff(settings.disable_comment, info.comment_disabled, 'comments', 'disable_comment') }
      : {}),
    ...(settings.auto_add_music === undefined ? {} : { auto_add_music: settings.auto_add_music }),
    ...brandFields(settings),
  };
}

function brandFields(settings: Settings): Record<string, boolean> {
  return {
    ...(settings.brand_content_toggle === undefined ? {} : { brand_content_toggle: settings.brand_content_toggle }),
    ...(settings.brand_organic_toggle === undefined ? {} : { brand_organic_toggle: settings.brand_organic_toggle }),
  };
}
