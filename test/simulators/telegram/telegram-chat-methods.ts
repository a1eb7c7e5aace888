import type { SimulatedAnswer } from '../kit/simulator-server.ts';
import { fail, intParam, objectParam, ok, type BotParams } from './telegram-params.ts';
import {
  chatBrief, type SimulatedBot, type SimulatedChat, type SimulatedMembership, type TelegramState,
} from './telegram-state.ts';

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
  return ok({ status: place.status, user, ...memberFields(chat, place) });
}

/**
 * What each ChatMember kind always carries beside status and user: an owner's anonymity, a
 * banned user's until_date (0: for ever), and an administrator's every right (can_post_messages
 * and can_edit_messages in channels only). The rights not modelled here are a bot's usual ones.
 */
function memberFields(chat: SimulatedChat, place: SimulatedMembership): Record<string, unknown> {
  switch (place.status) {
    case 'creator':
      return { is_anonymous: false };
    case 'kicked':
      return { until_date: 0 };
    case 'administrator':
      return {
        can_be_edited: false,
        is_anonymous: false,
        can_manage_chat: true,
        can_delete_messages: true,
        can_manage_video_chats: true,
        can_restrict_members: true,
        can_promote_members: false,
        can_change_info: true,
        can_invite_users: true,
        can_post_stories: true,
        can_edit_stories: true,
        can_delete_stories: true,
        ...(chat.type === 'channel'
          ? { can_post_messages: place.canPostMessages === true, can_edit_messages: true }
          : { can_pin_messages: true, can_manage_topics: false }),
      };
    default:
      return {};
  }
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

/** ChatFullInfo: the chat, with what getChat always adds (a new chat's colour, reactions and gift settings). */
function fullInfo(chat: SimulatedChat): Record<string, unknown> {
  return {
    ...chatBrief(chat),
    accent_color_id: 0,
    max_reaction_count: 11,
    accepted_gift_types: {
      unlimited_gifts: false, limited_gifts: false, unique_gifts: false, premium_subscription: false,
      gifts_from_channels: false,
    },
  };
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
      return isChat(chat) ? ok(fullInfo(chat)) : chat;
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
