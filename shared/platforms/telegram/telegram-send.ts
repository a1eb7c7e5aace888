import { z } from 'zod';
import type { PublishMedia } from '../kit/platform-adapter.ts';
import type { AttachedFile, TelegramApi } from './telegram-api.ts';
import { migratedTo } from './telegram-errors.ts';
import type { telegramSettings } from './definition.ts';

type Settings = z.infer<typeof telegramSettings>;

/** The part of a Message SPS reads: its id and the chat it landed in (which names its link). */
const sentMessage = z.object({
  message_id: z.number().int().positive(),
  chat: z.object({ id: z.number().int(), username: z.string().optional() }),
});

/** sendMediaGroup answers every message of the album; the first carries the caption and answers replies. */
const sentAlbum = z.tuple([sentMessage], sentMessage);

export type SentMessage = z.infer<typeof sentMessage>;

export interface OutgoingPart {
  chatId: string;
  /** The message this part answers (`reply_parameters`), null for the first part. */
  replyTo: number | null;
  text: string;
  media: readonly PublishMedia[];
  settings: Settings;
}

/** Parameters every send method takes alike: the chat, the topic, notification and forwarding, the reply. */
function common(part: OutgoingPart, chatId: string): Record<string, unknown> {
  const { settings } = part;
  return {
    chat_id: chatId,
    message_thread_id: settings.message_thread_id,
    disable_notification: settings.disable_notification,
    protect_content: settings.protect_content,
    reply_parameters: part.replyTo === null ? undefined : { message_id: part.replyTo },
  };
}

/** Plain text, never parse_mode: SPS posts are plain text, and Telegram's markup would eat `*`, `_` and `<`. */
function caption(text: string): { caption?: string } {
  return text === '' ? {} : { caption: text };
}

function mediaOptions(settings: Settings, media: PublishMedia): Record<string, unknown> {
  return {
    has_spoiler: settings.has_spoiler,
    // Videos play as they download instead of after.
    ...(media.kind === 'video' ? { supports_streaming: true } : {}),
  };
}

async function sendTo(api: TelegramApi, token: string, part: OutgoingPart, chatId: string): Promise<SentMessage> {
  const { media, settings, text } = part;
  const [single, ...more] = media;
  if (single === undefined) {
    const preview = settings.disable_link_preview === true ? { link_preview_options: { is_disabled: true } } : {};
    return api.call(token, 'sendMessage', { ...common(part, chatId), text, ...preview }, sentMessage);
  }
  if (more.length === 0) {
    const field = single.kind === 'video' ? 'video' : 'photo';
    const parameters = {
      ...common(part, chatId),
      ...caption(text),
      ...mediaOptions(settings, single),
      show_caption_above_media: settings.show_caption_above_media,
    };
    const method = single.kind === 'video' ? 'sendVideo' : 'sendPhoto';
    return api.upload(token, method, parameters, [{ field, file: single }], sentMessage);
  }
  // An album: each file is a part of the form, named in `media` by attach://<part name>.
  const attached = (file: PublishMedia, index: number): AttachedFile => ({ field: `file${String(index)}`, file });
  const files: [AttachedFile, ...AttachedFile[]] = [
    attached(single, 0),
    ...more.map((file, at) => attached(file, at + 1)),
  ];
  const items = files.map(({ field, file }, index) => ({
    type: file.kind === 'video' ? 'video' : 'photo',
    media: `attach://${field}`,
    ...mediaOptions(settings, file),
    // The first item's caption is the album's caption.
    ...(index === 0 ? { ...caption(text), show_caption_above_media: settings.show_caption_above_media } : {}),
  }));
  const parameters = { ...common(part, chatId), media: items };
  const [message] = await api.upload(token, 'sendMediaGroup', parameters, files, sentAlbum);
  return message;
}

/**
 * Sends one post part as one Bot API call: sendMessage for text, sendPhoto / sendVideo for one
 * file, sendMediaGroup for 2 to 10 (open-and-community.md 10.2-10.4). A group that became a
 * supergroup refuses with `migrate_to_chat_id` and made nothing, so the part goes once more to
 * the new chat; the answer's chat is the one the release id names.
 */
export async function sendPart(api: TelegramApi, token: string, part: OutgoingPart): Promise<SentMessage> {
  try {
    return await sendTo(api, token, part, part.chatId);
  } catch (error) {
    const supergroup = migratedTo(error);
    if (supergroup === null) throw error;
    return sendTo(api, token, part, String(supergroup));
  }
}
