import { z } from 'zod';

/** What a Slack channel holds: the workspace's bot token and the conversation it posts to. */
const credential = z.object({
  /** `xoxb-…`, issued by oauth.v2.access for the workspace; it does not expire without token rotation. */
  botToken: z.string().min(1),
  teamId: z.string().min(1),
  channelId: z.string().min(1),
});

export type SlackCredential = z.infer<typeof credential>;

export function encodeSlackCredential(value: SlackCredential): string {
  return JSON.stringify(value);
}

/** Reads back the credential a connected channel stores; throws on anything else. */
export function readSlackCredential(accessToken: string): SlackCredential {
  return credential.parse(JSON.parse(accessToken));
}
