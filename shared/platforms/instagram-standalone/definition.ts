import { definePlatform } from '../kit/platform-definition.ts';
import {
  checkInstagramPost, instagramMediaRules, instagramSettings, instagramTools,
} from '../meta/instagram-post-rules.ts';

/** The same container options as through Facebook Login; only the host and the token differ. */
export const instagramStandaloneSettings = instagramSettings;

/** Facts: ../shared/platforms/oauth-majors.md, section 5 (Instagram API with Instagram Login). */
export const instagramStandalone = definePlatform({
  identifier: 'instagram-standalone',
  displayName: 'Instagram (Standalone)',
  group: 'social',
  textLimit: 2200,
  textCounting: 'code-points',
  replies: 'comment',
  mediaByUrl: true,
  mediaRules: instagramMediaRules,
  rules:
    'Instagram professional account connected directly, without a Facebook Page. There are no text-only '
    + 'posts. A single video is published as a Reel, several media as a carousel. Instagram fetches every '
    + 'image and video from its public URL and takes JPEG images only. The caption may hold at most 30 '
    + 'hashtags and 20 @-mentions. Later parts are published as text comments. An account may publish about'
    + ' 100 posts a day through the API (see the publishingLimit tool).',
  settings: instagramStandaloneSettings,
  tools: instagramTools,
  checkPost: ({ settings, parts }) => checkInstagramPost(settings, parts),
});
