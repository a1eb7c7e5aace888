import { definePlatform } from '../kit/platform-definition.ts';
import {
  checkLinkedinPost, linkedinMediaRules, linkedinSettings, linkedinTextRules,
} from '../linkedin-family/linkedin-post-rules.ts';

/** Facts: ../shared/platforms/oauth-majors.md, section 2 (LinkedIn). */
export const linkedin = definePlatform({
  identifier: 'linkedin',
  displayName: 'LinkedIn',
  group: 'social',
  textLimit: 3000,
  textCounting: 'code-points',
  replies: 'comment',
  mediaRules: linkedinMediaRules,
  rules:
    'The first part is the post; later parts are published as comments on it, as text only, of at most 1,250 '
    + `characters. ${linkedinTextRules}`,
  settings: linkedinSettings,
  tools: [],
  checkPost: ({ settings, parts }) => checkLinkedinPost(settings, parts),
});
