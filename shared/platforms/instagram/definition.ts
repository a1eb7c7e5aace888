import { definePlatform } from '../kit/platform-definition.ts';
import {
  checkInstagramPost, instagramMediaRules, instagramSettings, instagramTools,
} from '../meta/instagram-post-rules.ts';

/** Facts: ../shared/platforms/oauth-majors.md, section 4 (Instagram via Facebook Login). */
export const instagram = definePlatform({
  identifier: 'instagram',
  displayName: 'Instagram',
  group: 'social',
  textLimit: 2200,
  textCounting: 'code-points',
  replies: 'comment',
  mediaByUrl: true,
  mediaRules: instagramMediaRules,
  rules:
    'Instagram professional account linked to a Facebook Page. There are no text-only posts. A single '
    + 'video is published as a Reel, several media as a carousel. The caption may hold at most 30 hashtags '
    + 'and 20 @-mentions. Later parts are published as text comments. Instagram fetches every image and '
    + 'video from its public URL and takes JPEG images only; an account may publish about 100 posts a day '
    + 'through the API (see the publishingLimit tool).',
  settings: instagramSettings,
  tools: instagramTools,
  checkPost: ({ settings, parts }) => checkInstagramPost(settings, parts),
});
