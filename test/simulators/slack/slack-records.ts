/** What the Slack simulator holds: workspaces with their channels, messages and uploaded files. */

export interface SimulatedSlackChannel {
  id: string;
  name: string;
  isPrivate: boolean;
  isArchived?: boolean;
  /** Whether the app's bot user is in the channel; it must be to post, upload or read history. */
  botIsMember?: boolean;
  /** Members besides the bot, for conversations.info's num_members. */
  members?: number;
}

export interface SimulatedSlackWorkspace {
  teamId: string;
  teamName: string;
  channels: SimulatedSlackChannel[];
}

/**
 * The app's bot user in every simulated workspace, as auth.test and messages name it. A bot id is
 * `B` and at least eight more letters or digits, as Slack's description has it (defs_bot_id).
 */
export const botUserId = 'U0BOT';
export const botId = 'B0SPSBOT01';

export interface SlackReaction {
  name: string;
  count: number;
}

export interface SlackMessage {
  teamId: string;
  channel: string;
  ts: string;
  /** The top-level message's ts for a reply; null for a top-level message. */
  threadTs: string | null;
  user: string;
  botId: string;
  text: string;
  /** Ids of the files the message shares (files.completeUploadExternal). */
  files: string[];
  /** A reply also shown in the channel (`reply_broadcast`). */
  broadcast: boolean;
  /** chat.postMessage's presentation fields, as sent. */
  options: Record<string, unknown>;
  reactions: SlackReaction[];
}

export interface SlackFile {
  teamId: string;
  id: string;
  fileName: string;
  /** Bytes announced to files.getUploadURLExternal; the upload must carry exactly these many. */
  length: number;
  altText: string | null;
  title: string | null;
  /** The secret path segment of its upload_url. */
  uploadToken: string;
  bytes: Buffer | null;
  contentType: string | null;
  /** How many times bytes reached the upload URL. */
  uploads: number;
  completed: boolean;
  /** Where the file was shared: the message that carries it. */
  shares: { channel: string; ts: string; threadTs: string | null; isPrivate: boolean }[];
}

export class SlackRecords {
  readonly messages: SlackMessage[] = [];
  readonly files: SlackFile[] = [];
  #lastTs = 0;
  #nextFile = 0;

  /**
   * A message timestamp as Slack writes it, seconds and six digits; strictly increasing, so two
   * messages made within the same microsecond still get different ids.
   */
  nextTs(): string {
    const micros = Math.max(Date.now() * 1_000, this.#lastTs + 1);
    this.#lastTs = micros;
    return `${String(Math.floor(micros / 1_000_000))}.${String(micros % 1_000_000).padStart(6, '0')}`;
  }

  nextFileId(): string {
    this.#nextFile += 1;
    return `F0${String(this.#nextFile).padStart(9, '0')}`;
  }

  message(teamId: string, channel: string, ts: string): SlackMessage | undefined {
    return this.messages.find((item) => item.teamId === teamId && item.channel === channel && item.ts === ts);
  }

  replies(message: SlackMessage): SlackMessage[] {
    return this.messages.filter((item) =>
      item.teamId === message.teamId && item.channel === message.channel && item.threadTs === message.ts);
  }

  /** Messages in one channel, as tests count them. */
  inChannel(channel: string): SlackMessage[] {
    return this.messages.filter((item) => item.channel === channel);
  }

  withText(text: string): SlackMessage[] {
    return this.messages.filter((item) => item.text === text);
  }

  file(id: string): SlackFile | undefined {
    return this.files.find((item) => item.id === id);
  }
}

/** When every simulated channel was made, as conversation objects' `created` shows it (Unix seconds). */
const channelsCreated = 1_600_000_000;

/**
 * A channel as the Web API's conversation object shows it (conversations.list, info and join),
 * with the fields Slack always sends. A private channel made before March 2021 has a `G…` id and
 * is a group, not a channel (Slack's conversation object reference); the simulator names the
 * private channels its tests use that way.
 */
export function conversationObject(
  channel: SimulatedSlackChannel,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  const group = channel.id.startsWith('G');
  const unset = { value: '', creator: '', last_set: 0 };
  return {
    id: channel.id,
    name: channel.name,
    name_normalized: channel.name,
    created: channelsCreated,
    creator: 'U0CREATOR',
    is_channel: !group,
    is_group: group,
    is_im: false,
    is_mpim: false,
    is_private: channel.isPrivate,
    is_archived: channel.isArchived === true,
    is_general: channel.name === 'general',
    is_shared: false,
    is_org_shared: false,
    is_ext_shared: false,
    is_pending_ext_shared: false,
    is_member: channel.botIsMember === true,
    topic: unset,
    purpose: unset,
    previous_names: [],
    ...extra,
  };
}

/** Slack compares timestamps as decimal numbers of seconds. */
export const tsNumber = (ts: string): number => Number(ts);

/** A message as the Web API shows it in history, replies and reactions.get. */
export function messageObject(records: SlackRecords, message: SlackMessage): Record<string, unknown> {
  const replies = message.threadTs === null ? records.replies(message) : [];
  const files = message.files.flatMap((id) => {
    const file = records.file(id);
    if (file === undefined) return [];
    const title = file.title ?? file.fileName;
    return [{ id, name: file.fileName, title, size: file.length, mimetype: file.contentType }];
  });
  return {
    type: 'message',
    user: message.user,
    bot_id: message.botId,
    text: message.text,
    ts: message.ts,
    ...(message.broadcast ? { subtype: 'thread_broadcast' } : {}),
    ...(message.threadTs !== null ? { thread_ts: message.threadTs, parent_user_id: message.user } : {}),
    ...(replies.length > 0
      ? { thread_ts: message.ts, reply_count: replies.length, latest_reply: replies.at(-1)?.ts, reply_users_count: 1 }
      : {}),
    ...(files.length > 0 ? { files, upload: true } : {}),
    ...(message.reactions.length > 0 ? { reactions: message.reactions.map((item) => ({ ...item, users: [] })) } : {}),
  };
}
