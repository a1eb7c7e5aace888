import type { UploadedFile } from './telegram-params.ts';

/** The simulator's world: bots, chats, the messages bots sent and the updates waiting for them. */
export interface SimulatedBot {
  token: string;
  id: number;
  username: string;
  firstName: string;
  /** A webhook is set: getUpdates answers 409, as the Bot API does. */
  webhook?: boolean;
}

export interface SimulatedMembership {
  status: 'creator' | 'administrator' | 'member' | 'left' | 'kicked';
  canPostMessages?: boolean;
}

export interface SimulatedChat {
  id: number;
  type: 'private' | 'group' | 'supergroup' | 'channel';
  title: string;
  username?: string;
  /** Each bot's place in the chat; a bot absent from it is not a member. */
  members: Map<number, SimulatedMembership>;
  /** Subscribers or members as getChatMemberCount reports them; the members map's size unless set. */
  memberCount?: number;
  /** A group upgraded to this supergroup: sends to the old id are refused with migrate_to_chat_id. */
  migratedTo?: number;
  /** Members (not administrators) may not send photos / videos in this group. */
  noMediaForMembers?: boolean;
}

/** One message a bot sent, as the chat shows it. */
export interface SentMessage {
  chatId: number;
  messageId: number;
  botId: number;
  kind: 'text' | 'photo' | 'video';
  /** The text, or the caption of a photo or video; null without one. */
  text: string | null;
  replyTo: number | null;
  mediaGroupId: string | null;
  file: UploadedFile | null;
  /** Send options as they arrived (disable_notification, has_spoiler, parse_mode, message_thread_id...). */
  options: Record<string, unknown>;
  /** When it arrived (ms), for tests that time retries. */
  at: number;
}

/** A chat message or channel post waiting in a bot's getUpdates queue. */
export interface PendingUpdate {
  updateId: number;
  botId: number;
  chatId: number;
  text: string;
}

export class TelegramState {
  readonly bots: SimulatedBot[] = [];
  readonly chats: SimulatedChat[] = [];
  readonly messages: SentMessage[] = [];
  readonly updates: PendingUpdate[] = [];
  #nextUpdate = 700_000_001;
  #nextGroup = 13_000_000_000_001;

  /** chat_id is "Integer or String": a number, a numeric string, or @username. */
  findChat(value: unknown): SimulatedChat | undefined {
    if (typeof value === 'number') return this.chats.find((chat) => chat.id === value);
    if (typeof value !== 'string') return undefined;
    if (/^-?\d+$/.test(value)) return this.chats.find((chat) => chat.id === Number(value));
    if (!value.startsWith('@')) return undefined;
    const name = value.slice(1).toLowerCase();
    return this.chats.find((chat) => chat.username?.toLowerCase() === name);
  }

  /** Message ids count up per chat, as in Telegram's channels and supergroups. */
  nextMessageId(chatId: number): number {
    const inChat = this.messages.filter((message) => message.chatId === chatId);
    return inChat.reduce((highest, message) => Math.max(highest, message.messageId), 0) + 1;
  }

  nextMediaGroupId(): string {
    this.#nextGroup += 1;
    return String(this.#nextGroup);
  }

  addUpdate(botId: number, chatId: number, text: string): number {
    this.#nextUpdate += 1;
    this.updates.push({ updateId: this.#nextUpdate, botId, chatId, text });
    return this.#nextUpdate;
  }
}

export function chatBrief(chat: SimulatedChat): Record<string, unknown> {
  return {
    id: chat.id,
    type: chat.type,
    title: chat.title,
    ...(chat.username === undefined ? {} : { username: chat.username }),
  };
}
