import { textLength } from '../../../shared/platforms/kit/text-length.ts';
import type { SimulatedAnswer } from '../kit/simulator-server.ts';
import {
  fail, fileParam, flagParam, intParam, objectParam, ok, textParam, type BotParams, type UploadedFile,
} from './telegram-params.ts';
import {
  chatBrief, type SentMessage, type SimulatedBot, type SimulatedChat, type TelegramState,
} from './telegram-state.ts';

const maxText = 4096;
const maxCaption = 1024;
/** Multipart uploads: photos up to 10 MB, other files up to 50 MB (open-and-community.md 10.3). */
const maxPhotoBytes = 10 * 1024 * 1024;
const maxFileBytes = 50 * 1024 * 1024;
const parseModes = ['HTML', 'MarkdownV2', 'Markdown'];

/** Characters as SPS's definition counts them (code points); the facts do not say how Telegram counts. */
const length = (text: string): number => textLength(text, 'code-points');

/** Whether the bot may send `kind` in the chat; Telegram's refusal otherwise (403 for lost places and rights). */
function mayPost(chat: SimulatedChat, bot: SimulatedBot, kind: SentMessage['kind']): SimulatedAnswer | null {
  const where = chat.type === 'channel' ? 'channel chat' : `${chat.type} chat`;
  const place = chat.members.get(bot.id);
  if (place?.status === 'kicked') return fail(403, `Forbidden: bot was kicked from the ${where}`);
  if (place === undefined || place.status === 'left') {
    return fail(403, `Forbidden: bot is not a member of the ${where}`);
  }
  if (place.status === 'creator') return null;
  if (chat.type === 'channel') {
    const allowed = place.status === 'administrator' && place.canPostMessages === true;
    return allowed ? null : fail(403, 'Forbidden: need administrator rights in the channel chat');
  }
  if (kind !== 'text' && chat.noMediaForMembers === true && place.status !== 'administrator') {
    return fail(403, `Forbidden: not enough rights to send ${kind}s to the chat`);
  }
  return null;
}

/** The target chat, the reply and the common options, or Telegram's refusal of them. */
interface Target {
  chat: SimulatedChat;
  replyTo: number | null;
  options: Record<string, unknown>;
}

function target(
  state: TelegramState,
  bot: SimulatedBot,
  params: BotParams,
  kind: SentMessage['kind'],
): Target | SimulatedAnswer {
  if (!params.values.has('chat_id')) return fail(400, 'Bad Request: chat_id is empty');
  const chat = state.findChat(params.values.get('chat_id'));
  if (chat === undefined || (!chat.members.has(bot.id) && chat.username === undefined)) {
    return fail(400, 'Bad Request: chat not found');
  }
  if (chat.migratedTo !== undefined) {
    const upgraded = { migrate_to_chat_id: chat.migratedTo };
    return fail(400, 'Bad Request: group chat was upgraded to a supergroup chat', upgraded);
  }
  const refused = mayPost(chat, bot, kind);
  if (refused !== null) return refused;
  const parseMode = textParam(params, 'parse_mode');
  if (parseMode !== null && !parseModes.includes(parseMode)) return fail(400, 'Bad Request: unsupported parse_mode');
  const reply = objectParam(params, 'reply_parameters');
  if (reply === 'unreadable') return fail(400, 'Bad Request: can\'t parse reply parameters JSON object');
  let replyTo: number | null = null;
  if (reply !== undefined) {
    const messageId = (reply.value as { message_id?: unknown } | null)?.message_id;
    if (typeof messageId !== 'number' || !Number.isInteger(messageId)) {
      return fail(400, 'Bad Request: message to be replied not found');
    }
    const exists = state.messages.some((message) => message.chatId === chat.id && message.messageId === messageId);
    if (!exists) return fail(400, 'Bad Request: message to be replied not found');
    replyTo = messageId;
  }
  const options: Record<string, unknown> = {};
  for (const name of ['disable_notification', 'protect_content', 'has_spoiler', 'show_caption_above_media',
    'supports_streaming']) {
    if (flagParam(params, name)) options[name] = true;
  }
  const threadId = intParam(params, 'message_thread_id');
  if (threadId !== null) options.message_thread_id = threadId;
  if (parseMode !== null) options.parse_mode = parseMode;
  const preview = objectParam(params, 'link_preview_options');
  if (preview !== undefined && preview !== 'unreadable') options.link_preview_options = preview.value;
  return { chat, replyTo, options };
}

const isTarget = (value: Target | SimulatedAnswer): value is Target => 'chat' in value && 'options' in value;

/** A file's refusal for its kind, or null when Telegram takes it. */
function fileProblem(file: UploadedFile, kind: 'photo' | 'video'): SimulatedAnswer | null {
  if (kind === 'photo' && !file.contentType.startsWith('image/')) {
    return fail(400, 'Bad Request: IMAGE_PROCESS_FAILED');
  }
  if (kind === 'video' && !file.contentType.startsWith('video/')) return fail(400, 'Bad Request: wrong file type');
  if (file.bytes.length > (kind === 'photo' ? maxPhotoBytes : maxFileBytes)) {
    return fail(400, 'Bad Request: file is too big');
  }
  if (file.bytes.length === 0) return fail(400, 'Bad Request: file must be non-empty');
  return null;
}

/** A Message as the Bot API answers it; the message it replies to in full, without its own reply (as Telegram does). */
function messageJson(state: TelegramState, message: SentMessage, nested = false): Record<string, unknown> {
  const chat = state.chats.find((candidate) => candidate.id === message.chatId);
  const replied = message.replyTo === null ? undefined
    : state.messages.find((earlier) => earlier.chatId === message.chatId && earlier.messageId === message.replyTo);
  const id = String(message.messageId);
  const file = message.file === null ? {} : {
    [message.kind]: message.kind === 'photo'
      ? [{ file_id: `AgAD${id}`, file_unique_id: `u${id}`, width: 64, height: 48 }]
      : { file_id: `BAAD${id}`, file_unique_id: `v${id}`, width: 64, height: 48, duration: 1 },
  };
  const text = message.text === null ? {} : { [message.kind === 'text' ? 'text' : 'caption']: message.text };
  return {
    message_id: message.messageId,
    date: Math.floor(message.at / 1000),
    chat: chat === undefined ? { id: message.chatId } : chatBrief(chat),
    ...text,
    ...file,
    ...(message.mediaGroupId === null ? {} : { media_group_id: message.mediaGroupId }),
    ...(nested || replied === undefined ? {} : { reply_to_message: messageJson(state, replied, true) }),
  };
}

type Draft = Pick<SentMessage, 'kind' | 'text' | 'file'>;

function store(state: TelegramState, bot: SimulatedBot, to: Target, drafts: Draft[]): Record<string, unknown>[] {
  const mediaGroupId = drafts.length > 1 ? state.nextMediaGroupId() : null;
  return drafts.map((draft) => {
    const message: SentMessage = {
      ...draft, chatId: to.chat.id, messageId: state.nextMessageId(to.chat.id), botId: bot.id,
      replyTo: to.replyTo, mediaGroupId, options: to.options, at: Date.now(),
    };
    state.messages.push(message);
    return messageJson(state, message);
  });
}

function sendMessage(state: TelegramState, bot: SimulatedBot, params: BotParams): SimulatedAnswer {
  const to = target(state, bot, params, 'text');
  if (!isTarget(to)) return to;
  const text = textParam(params, 'text') ?? '';
  if (text.trim() === '') return fail(400, 'Bad Request: message text is empty');
  if (length(text) > maxText) return fail(400, 'Bad Request: message is too long');
  const [message] = store(state, bot, to, [{ kind: 'text', text, file: null }]);
  return ok(message);
}

function sendFile(
  state: TelegramState,
  bot: SimulatedBot,
  params: BotParams,
  kind: 'photo' | 'video',
): SimulatedAnswer {
  const to = target(state, bot, params, kind);
  if (!isTarget(to)) return to;
  const file = fileParam(params, kind);
  if (file === 'missing') return fail(400, `Bad Request: there is no ${kind} in the request`);
  if (file === 'unknown') return fail(400, 'Bad Request: wrong file identifier/HTTP URL specified');
  const problem = fileProblem(file, kind);
  if (problem !== null) return problem;
  const caption = textParam(params, 'caption');
  if (caption !== null && length(caption) > maxCaption) return fail(400, 'Bad Request: message caption is too long');
  const [message] = store(state, bot, to, [{ kind, text: caption === '' ? null : caption, file }]);
  return ok(message);
}

/** sendMediaGroup: `media` is a JSON array of 2-10 InputMediaPhoto / InputMediaVideo, files by attach://. */
function sendMediaGroup(state: TelegramState, bot: SimulatedBot, params: BotParams): SimulatedAnswer {
  const media = objectParam(params, 'media');
  if (media === undefined) return fail(400, 'Bad Request: parameter "media" is required');
  if (media === 'unreadable' || !Array.isArray(media.value)) {
    return fail(400, 'Bad Request: can\'t parse media JSON object');
  }
  const items = media.value as unknown[];
  if (items.length < 2) return fail(400, 'Bad Request: media must contain at least 2 items');
  if (items.length > 10) return fail(400, 'Bad Request: too many messages to send as an album');
  const drafts: Draft[] = [];
  for (const item of items) {
    const { type, media: reference, caption } = (item ?? {}) as { type?: unknown; media?: unknown; caption?: unknown };
    if (type !== 'photo' && type !== 'video') return fail(400, 'Bad Request: wrong media type in the album');
    if (typeof reference !== 'string' || !reference.startsWith('attach://')) {
      return fail(400, 'Bad Request: wrong file identifier/HTTP URL specified');
    }
    const file = params.files.get(reference.slice('attach://'.length));
    if (file === undefined) return fail(400, 'Bad Request: wrong file identifier/HTTP URL specified');
    const problem = fileProblem(file, type);
    if (problem !== null) return problem;
    if (typeof caption === 'string' && length(caption) > maxCaption) {
      return fail(400, 'Bad Request: message caption is too long');
    }
    drafts.push({ kind: type, text: typeof caption === 'string' && caption !== '' ? caption : null, file });
  }
  const kind = drafts.some((draft) => draft.kind === 'video') ? 'video' : 'photo';
  const to = target(state, bot, params, kind);
  if (!isTarget(to)) return to;
  return ok(store(state, bot, to, drafts));
}

/** Bots delete their own messages in groups for 48 hours; in a channel they post to, at any time. */
const deleteWindowMs = 48 * 3600_000;

/**
 * deleteMessage of a message the bot sent: `true` once it is gone; an unknown one is "message to
 * delete not found", an old one in a group "message can't be deleted for everyone".
 */
function deleteMessage(state: TelegramState, bot: SimulatedBot, params: BotParams): SimulatedAnswer {
  const chat = state.findChat(params.values.get('chat_id'));
  if (chat === undefined || !chat.members.has(bot.id)) return fail(400, 'Bad Request: chat not found');
  const messageId = intParam(params, 'message_id');
  const index = state.messages.findIndex((message) =>
    message.chatId === chat.id && message.messageId === messageId && message.botId === bot.id);
  const message = state.messages[index];
  if (message === undefined) return fail(400, 'Bad Request: message to delete not found');
  if (chat.type !== 'channel' && Date.now() - message.at > deleteWindowMs) {
    return fail(400, 'Bad Request: message can\'t be deleted for everyone');
  }
  state.messages.splice(index, 1);
  return ok(true);
}

/** sendMessage, sendPhoto, sendVideo, sendMediaGroup and deleteMessage; undefined for other methods. */
export function sendMethod(
  state: TelegramState,
  bot: SimulatedBot,
  method: string,
  params: BotParams,
): SimulatedAnswer | undefined {
  switch (method) {
    case 'sendmessage':
      return sendMessage(state, bot, params);
    case 'sendphoto':
      return sendFile(state, bot, params, 'photo');
    case 'sendvideo':
      return sendFile(state, bot, params, 'video');
    case 'sendmediagroup':
      return sendMediaGroup(state, bot, params);
    case 'deletemessage':
      return deleteMessage(state, bot, params);
    default:
      return undefined;
  }
}
