import { z } from 'zod';
import { storedCredential } from '../kit/stored-credential.ts';

/** What a Slack channel holds: the workspace's bot token and the conversation it posts to. */
const credential = z.object({
  /** `xoxb-…`, issued by oauth.v2.access for the workspace; it does not expire without token rotation. */
  botToken: z.string().min(1),
  teamId: z.string().min(1),
  channelId: z.string().min(1),
});

export type SlackCredential = z.infer<typeof credential>;

export const { encode: encodeSlackCredential, read: readSlackCredential } = storedCredential(credential, {
  provider: 'slack', what: 'Slack credential', reconnect: 'connect the workspace again',
});
