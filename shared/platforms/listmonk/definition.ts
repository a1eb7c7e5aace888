import { z } from 'zod';
import { definePlatform } from '../kit/platform-definition.ts';

/** Fields of POST /api/campaigns that SPS passes through; the post text becomes `body`. */
export const listmonkSettings = z.object({
  subject: z.string().trim().min(1, 'a campaign needs a subject').max(5000).describe('Email subject (required), up to 5000 characters'),
  lists: z
    .array(z.number().int().positive())
    .min(1, 'a campaign needs at least 1 list')
    .describe('Ids of the lists the campaign goes to (required; see the lists tool)'),
  name: z.string().trim().min(1).max(2000).optional().describe('Campaign name shown in the listmonk admin, up to 2000 characters'),
  type: z.enum(['regular', 'optin']).optional().describe('regular campaign, or an opt-in confirmation campaign'),
  content_type: z.enum(['richtext', 'html', 'markdown', 'plain']).optional().describe('Format of the text: richtext, html, markdown or plain'),
  altbody: z.string().optional().describe('Plain-text alternative of the email'),
  from_email: z.string().trim().min(1).optional().describe('Sender, such as "News <news@example.com>"; the instance default when absent'),
  template_id: z.number().int().positive().optional().describe('Campaign template (see the templates tool); the default template when absent'),
  messenger: z.string().trim().min(1).optional().describe('Messenger that sends the campaign: email or a custom one'),
  tags: z.array(z.string().trim().min(1)).optional().describe('Tags to organise campaigns in listmonk'),
});

/** Facts: ../shared/platforms/design-blogging-business.md, section 8 (Listmonk). */
export const listmonk = definePlatform({
  identifier: 'listmonk',
  displayName: 'Listmonk',
  group: 'business',
  textLimit: 100_000_000,
  textCounting: 'code-points',
  replies: 'none',
  mediaRules: 'Images are uploaded to the instance\'s media store and placed in the email by URL.',
  rules: 'Each post is one email campaign on a self-hosted listmonk instance, created and then started; subject and at least one list are required. The body may use listmonk template expressions. The API user needs permission to manage and send campaigns. There are no threads, so send one part only.',
  settings: listmonkSettings,
  tools: [
    { methodName: 'lists', description: 'Lists the active mailing lists with their ids and subscriber counts.', dataSchema: [] },
    { methodName: 'templates', description: 'Lists the campaign templates with their ids.', dataSchema: [] },
  ],
  checkPost() {
    return [];
  },
});
