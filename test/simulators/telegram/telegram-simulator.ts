import {
  formBody, jsonBody, startSimulatorServer, type RunningSimulator, type SimulatedAnswer, type SimulatedRequest,
} from '../kit/simulator-server.ts';

/**
 * A local stand-in for the Telegram Bot API (`/bot<token>/<method>`) as far as connecting a chat
 * goes: getMe, getChat, getChatMember. Parameters are read the ways the Bot API reads them (query
 * string, JSON or form body); every answer is `{ok, result}` or `{ok:false, error_code, description}`.
 * Facts: ../shared/platforms/open-and-community.md, section 10.
 */
export interface SimulatedBot {
  token: string;
  id: number;
  username: string;
  firstName: string;
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
}

export interface TelegramSimulator extends RunningSimulator {
  addBot(bot: SimulatedBot): void;
  addChat(chat: SimulatedChat): void;
}

function fail(code: number, description: string): SimulatedAnswer {
  return { status: code, body: { ok: false, error_code: code, description } };
}

function ok(result: unknown): SimulatedAnswer {
  return { status: 200, body: { ok: true, result } };
}

/** The Bot API takes parameters from the query string, a JSON body or a form body alike. */
function parametersOf(request: SimulatedRequest): Map<string, unknown> {
  const parameters = new Map<string, unknown>(request.query.entries());
  const type = request.headers['content-type'] ?? '';
  if (type.startsWith('application/json')) {
    const body = jsonBody(request);
    if (typeof body === 'object' && body !== null) {
      for (const [key, value] of Object.entries(body)) parameters.set(key, value);
    }
  } else if (type.startsWith('application/x-www-form-urlencoded')) {
    for (const [key, value] of formBody(request)) parameters.set(key, value);
  }
  return parameters;
}

/** chat_id is "Integer or String": a number, a numeric string, or @username. */
function findChat(chats: SimulatedChat[], value: unknown): SimulatedChat | undefined {
  if (typeof value === 'number') return chats.find((chat) => chat.id === value);
  if (typeof value !== 'string') return undefined;
  if (/^-?\d+$/.test(value)) return chats.find((chat) => chat.id === Number(value));
  if (!value.startsWith('@')) return undefined;
  const name = value.slice(1).toLowerCase();
  return chats.find((chat) => chat.username?.toLowerCase() === name);
}

function chatInfo(chat: SimulatedChat): object {
  return {
    id: chat.id,
    type: chat.type,
    title: chat.title,
    ...(chat.username === undefined ? {} : { username: chat.username }),
    accent_color_id: 0,
    max_reaction_count: 11,
  };
}

export async function startTelegramSimulator(): Promise<TelegramSimulator> {
  const bots: SimulatedBot[] = [];
  const chats: SimulatedChat[] = [];

  function answer(request: SimulatedRequest): SimulatedAnswer {
    const match = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(request.path);
    if (match === null) return fail(404, 'Not Found');
    const [, token, methodName] = match;
    const bot = bots.find((candidate) => candidate.token === token);
    if (bot === undefined) return fail(401, 'Unauthorized');
    const parameters = parametersOf(request);
    // Method names are case-insensitive in the Bot API.
    switch (methodName?.toLowerCase()) {
      case 'getme':
        return ok({ id: bot.id, is_bot: true, first_name: bot.firstName, username: bot.username });
      case 'getchat': {
        if (!parameters.has('chat_id')) return fail(400, 'Bad Request: chat_id is empty');
        const chat = findChat(chats, parameters.get('chat_id'));
        // A bot sees only chats it belongs to, and public ones by @username.
        const visible = chat !== undefined && (chat.members.has(bot.id) || chat.username !== undefined);
        return visible ? ok(chatInfo(chat)) : fail(400, 'Bad Request: chat not found');
      }
      case 'getchatmember': {
        if (!parameters.has('chat_id')) return fail(400, 'Bad Request: chat_id is empty');
        const chat = findChat(chats, parameters.get('chat_id'));
        if (chat === undefined) return fail(400, 'Bad Request: chat not found');
        const userId = Number(parameters.get('user_id'));
        if (!Number.isInteger(userId) || userId <= 0) return fail(400, 'Bad Request: wrong user_id specified');
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
      default:
        return fail(404, 'Not Found');
    }
  }

  const server = await startSimulatorServer(answer, fail(404, 'Not Found'));
  return {
    ...server,
    addBot: (bot) => { bots.push(bot); },
    addChat: (chat) => { chats.push(chat); },
  };
}
