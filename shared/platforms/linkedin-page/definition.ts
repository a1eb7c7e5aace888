import { definePlatform } from '../kit/platform-definition.ts';
import {
  checkLinkedinPost, linkedinMediaRules, linkedinSettings, linkedinTextRules,
} from '../linkedin-family/linkedin-post-rules.ts';

/** A Page posts publicly: the member-only visibility choices do not apply. */
export const linkedinPageSettings = linkedinSettings.omit({ visibility: true });

/** Facts: ../shared/platforms/oauth-majors.md, section 2 (LinkedIn Pages); media rules as for members. */
export const linkedinPage = definePlatform({
  identifier: 'linkedin-page',
  displayName: 'LinkedIn Page',
  group: 'social',
  textLimit: 3000,
  textCounting: 'code-points',
  replies: 'comment',
  mediaRules: linkedinMediaRules,
  rules:
    'Posts are published as the organization whose Page the connected member administers, always publicly. '
    + 'The first part is the post; later parts are published as comments by the Page, as text only, of at most '
    + `1,250 characters. ${linkedinTextRules}`,
  settings: linkedinPageSettings,
  tools: [
    {
      methodName: 'organizations',
      description: 'Lists the LinkedIn Pages the connected member administers (id, name, vanity name).',
      dataSchema: [],
    },
  ],
  checkPost: ({ settings, parts }) => checkLinkedinPost(settings, parts),
});
