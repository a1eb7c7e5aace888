import type { SimulatedAnswer } from '../kit/simulator-server.ts';
import { fail, intParam, objectParam, ok, type BotParams } from './telegram-params.ts';
import { chatBrief, type SimulatedBot, type SimulatedChat, type TelegramState } from './telegram-state.ts';

/** A bot sees chats it belongs to, and public ones by @username. */
function visibleChat(state: TelegramState, bot: SimulatedBot, params: BotParams): SimulatedChat | SimulatedAnswer {
  if (!params.values.has('chat_id')) return fail(400, 'Bad Request: chat_id is empty');
  const chat = state.findChat(params.values.get('chat_id'));
  const visible = chat !== undefined && (chat.members.has(bot.id) || chat.username !== undefined);
  return visible ? chat : fail(400, 'Bad Request: chat not found');
}

const isChat = (value: SimulatedChat | SimulatedAnswer): value is SimulatedChat => 'members' in value;

function getChatMember(state: TelegramState, bot: SimulatedBot, params: BotParams): SimulatedAnswer {
  if (!params.values.has('chat_id')) return fail(400, 'Bad Request: chat_id is empty');
  const chat = state.findChat(params.values.get('chat_id'));
  if (chat === undefined) return fail(400, 'Bad Request: chat not found');
  const userId = intParam(params, 'user_id');
  if (userId === null || userId <= 0) return fail(400, 'Bad Request: wrong user_id specified');
  if (chat.type === 'channel' && !chat.members.has(bot.id)) {
    return fail(403, 'Forbidden: bot is not a member of the channel chat');
  }
  const place = chat.members.get(userId);
  const user = { id: userId, is_bot: userId === bot.id, first_name: userId === bot.id ? bot.firstName : 'User' };
  if (place === undefined) return ok({ status: 'left', user });
  const rights = place.status === 'administrator'
    ? { can_be_edited: false, can_manage_chat: true, can_post_messages: place.canPostMessages === true }
    : {};
  return ok({ status: place.status, user, ...rights });
}

/**
 * getUpdates without a webhook: the bot's waiting updates of the kinds `allowed_updates` names,
 * from `offset` on (which confirms, and so forgets, every earlier one), at most `limit` (1-100).
 */
function getUpdates(state: TelegramState, bot: SimulatedBot, params: BotParams): SimulatedAnswer {
  if (bot.webhook === true) {
    return fail(409, 'Conflict: can\'t use getUpdates method while webhook is active; use deleteWebhook to delete'
      + ' the webhook first');
  }
  const allowed = objectParam(params, 'allowed_updates');
  if (allowed === 'unreadable') return fail(400, 'Bad Request: can\'t parse allowed updates');
  const kinds = Array.isArray(allowed?.value) ? allowed.value : ['message', 'channel_post'];
  const offset = intParam(params, 'offset');
  if (offset !== null && offset > 0) {
    const forgotten = state.updates.filter((update) => update.botId === bot.id && update.updateId < offset);
    for (const update of forgotten) state.updates.splice(state.updates.indexOf(update), 1);
  }
  const limit = Math.min(Math.max(intParam(params, 'limit') ?? 100, 1), 100);
  const result = state.updates.filter((update) => update.botId === bot.id).flatMap((update) => {
    const chat = state.chats.find((candidate) => candidate.id === update.chatId);
    if (chat === undefined) return [];
    const kind = chat.type === 'channel' ? 'channel_post' : 'message';
    if (!kinds.includes(kind)) return [];
    const message = {
      message_id: update.updateId % 100_000, date: 1_760_000_000, chat: chatBrief(chat), text: update.text,
    };
    return [{ update_id: update.updateId, [kind]: message }];
  });
  return ok(result.slice(0, limit));
}

/** getMe, getChat, getChatMember, getChatMemberCount and getUpdates; undefined for other methods. */
export function chatMethod(
  state: TelegramState,
  bot: SimulatedBot,
  method: string,
  params: BotParams,
): SimulatedAnswer | undefined {
  switch (method) {
    case 'getme':
      return ok({ id: bot.id, is_bot: true, first_name: bot.firstName, username: bot.username });
    case 'getchat': {
      const chat = visibleChat(state, bot, params);
      return isChat(chat) ? ok({ ...chatBrief(chat), accent_color_id: 0, max_reaction_count: 11 }) : chat;
    }
    case 'getchatmember':
      return getChatMember(state, bot, params);
    case 'getchatmembercount': {
      const chat = visibleChat(state, bot, params);
      return isChat(chat) ? ok(chat.memberCount ?? chat.members.size) : chat;
    }
    case 'getupdates':
      return getUpdates(state, bot, params);
    default:
      return undefined;
  }
}
