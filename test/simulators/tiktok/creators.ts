import type { SimulatedAnswer } from '../kit/simulator-server.ts';
import { tiktokData } from './tiktok-answers.ts';

export const privacyLevels = [
  'PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'FOLLOWER_OF_CREATOR', 'SELF_ONLY',
] as const;
export type PrivacyLevel = (typeof privacyLevels)[number];

/**
 * What `POST /v2/post/publish/creator_info/query/` tells of a creator (oauth-majors.md 8.2): the
 * privacy levels their account offers, the interactions they turned off, the longest video they
 * may post; and what the simulation needs beyond it (the counters of /v2/user/info/, the daily
 * cap of API posts).
 */
export interface SimulatedCreator {
  privacyLevelOptions: PrivacyLevel[];
  commentDisabled: boolean;
  duetDisabled: boolean;
  stitchDisabled: boolean;
  maxVideoPostDurationSec: number;
  followerCount: number;
  followingCount: number;
  likesCount: number;
  /** Posts TikTok takes through the API in 24 hours before `spam_risk_too_many_posts`. */
  postsPerDay: number;
}

export const defaultCreator: SimulatedCreator = {
  privacyLevelOptions: [...privacyLevels],
  commentDisabled: false,
  duetDisabled: false,
  stitchDisabled: false,
  maxVideoPostDurationSec: 600,
  followerCount: 1200,
  followingCount: 80,
  likesCount: 34_000,
  postsPerDay: 15,
};

export function creatorInfoAnswer(
  creator: SimulatedCreator,
  profile: { username: string; displayName: string; avatarUrl: string },
): SimulatedAnswer {
  return tiktokData({
    creator_avatar_url: profile.avatarUrl,
    creator_username: profile.username,
    creator_nickname: profile.displayName,
    privacy_level_options: creator.privacyLevelOptions,
    comment_disabled: creator.commentDisabled,
    duet_disabled: creator.duetDisabled,
    stitch_disabled: creator.stitchDisabled,
    max_video_post_duration_sec: creator.maxVideoPostDurationSec,
  });
}
