import { z } from 'zod';
import { whenMissing } from '../kit/missing-setting.ts';
import { definePlatform } from '../kit/platform-definition.ts';

/** Fields of POST /api/campaigns that SPS passes through; the post text becomes `body`. */
export const listmonkSettings = z.object({
  subject: z.string().trim().min(1, 'a subject cannot be empty').max(5000).optional()
    .describe('Email subject, up to 5000 characters; the post\'s first line when absent'),
  lists: z
    .array(z.number().int().positive(), whenMissing('a campaign needs at least 1 list'))
    .min(1, 'a campaign needs at least 1 list')
    .describe('Ids of the lists the campaign goes to (required; see the lists tool)'),
  name: z.string().trim().min(1).max(2000).optional()
    .describe('Campaign name shown in the listmonk admin (the subject when absent); SPS adds the part\'s tag'),
  type: z.enum(['regular', 'optin']).optional().describe('regular campaign, or an opt-in confirmation campaign'),
  content_type: z.enum(['richtext', 'html', 'markdown', 'plain']).optional()
    .describe('How the email carries the post: richtext (the default) or html get HTML from the Markdown, '
      + 'markdown sends it as written, plain sends plain text'),
  altbody: z.string().optional().describe('Plain-text alternative of the email; the post as plain text when absent'),
  from_email: z.string().trim().min(1).optional()
    .describe('Sender, such as "News <news@example.com>"; the instance default when absent'),
  template_id: z.number().int().positive().optional()
    .describe('Campaign template (see the templates tool); the default template when absent'),
  messenger: z.string().trim().min(1).optional()
    .describe('Messenger that sends the campaign: email (the default) or a custom one'),
  tags: z.array(z.string().trim().min(1)).optional().describe('Tags to organise campaigns in listmonk'),
});

/** What listmonk's media upload takes (its default extensions; v1 allows no others). */
const uploadableImages = new Set(['image/png', 'image/jpeg', 'image/gif']);

/** Facts: ../shared/platforms/design-blogging-business.md, section 8 (Listmonk). */
export const listmonk = definePlatform({
  identifier: 'listmonk',
  displayName: 'Listmonk',
  group: 'business',
  textLimit: 100_000_000,
  textCounting: 'code-points',
  replies: 'none',
  mediaRules: 'Images (PNG, JPEG or GIF) are uploaded to the instance\'s media store and placed in the email '
    + 'after the text, by URL; no video.',
  rules: 'Each post is one email campaign on a self-hosted listmonk instance (v4 or later with an API user; '
    + 'earlier versions with the admin login), created and then started at once. At least one list is required; '
    + 'the subject is the post\'s first line unless set. The text is Markdown, sent as HTML unless content_type '
    + 'says otherwise, and may use listmonk template expressions such as {{ .Subscriber.FirstName }}. The API '
    + 'user needs permission to manage and send campaigns and to upload media. There are no threads, so send '
    + 'one part only.',
  settings: listmonkSettings,
  tools: [
    {
      methodName: 'lists',
      description: 'Lists the active mailing lists with their ids and subscriber counts.',
      dataSchema: [],
    },
    { methodName: 'templates', description: 'Lists the campaign templates with their ids.', dataSchema: [] },
  ],
  checkPost({ parts }) {
    const media = parts[0]?.media ?? [];
    const problems: string[] = [];
    if (media.some((item) => item.kind === 'video')) {
      problems.push('listmonk emails carry images only: link the video in the text instead');
    }
    const unsupported = media.filter((item) => item.kind === 'image' && !uploadableImages.has(item.mimeType));
    if (unsupported.length > 0) {
      problems.push(`listmonk's media store takes PNG, JPEG and GIF images, not ${unsupported[0]?.mimeType ?? ''}`);
    }
    return problems;
  },
});
