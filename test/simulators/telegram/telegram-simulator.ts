import {
  startSimulatorServer, type RunningSimulator, type SimulatedAnswer, type SimulatedRequest,
} from '../kit/simulator-server.ts';
import { chatMethod } from './telegram-chat-methods.ts';
import { fail, readParams } from './telegram-params.ts';
import { sendMethod } from './telegram-send-methods.ts';
import { telegramOperations } from './telegram-operations.ts';
import {
  TelegramState, type SentMessage, type SimulatedBot, type SimulatedChat, type SimulatedMembership,
} from './telegram-state.ts';

export type { SentMessage, SimulatedBot, SimulatedChat, SimulatedMembership } from './telegram-state.ts';

/**
 * What the next call of a method meets instead of (or after) its normal handling:
 * - `retryAfter`: flood control, 429 `Too Many Requests: retry after N` with `parameters.retry_after`;
 * - `lose`: the method runs (the message is posted), then the connection breaks before the answer;
 * - `refuse`: a refusal of Telegram's shape with this code and description.
 */
export type TelegramFault =
  | { retryAfter: number }
  | { lose: true }
  | { refuse: { code: number; description: string } };

/**
 * A local stand-in for the Telegram Bot API (`/bot<token>/<method>`, method names case-insensitive):
 * getMe, getChat, getChatMember, getChatMemberCount and getUpdates (telegram-chat-methods.ts);
 * sendMessage, sendPhoto, sendVideo and sendMediaGroup with multipart uploads, `attach://`, the
 * text and caption limits, `reply_parameters`, the bot's rights and group upgrades
 * (telegram-send-methods.ts). Parameters are read as the Bot API reads them (telegram-params.ts);
 * every answer is `{ok, result}` or `{ok:false, error_code, description, parameters?}`. Requests and
 * answers are held to the Bot API's description (operations.json, telegram-operations.ts).
 * Facts: ../shared/platforms/open-and-community.md, section 10.
 */
export interface TelegramSimulator extends RunningSimulator {
  addBot(bot: SimulatedBot): void;
  addChat(chat: SimulatedChat): void;
  /** A user's (or bot's) new place in a chat: kicked, demoted... */
  setMembership(chatId: number, userId: number, membership: SimulatedMembership): void;
  /** A message (in a group) or channel post (in a channel) that reaches the bot's getUpdates. */
  addUpdate(botToken: string, chatId: number, text: string): void;
  /** Queues faults for the next calls of `method` (e.g. 'sendMessage'), one per call. */
  failNext(method: string, ...faults: TelegramFault[]): void;
  /** Every message bots sent, in order. */
  readonly messages: readonly SentMessage[];
  /** The calls of one method that reached the simulator (however they ended). */
  calls(method: string): SimulatedRequest[];
  /** How many answers were lost after the method ran. */
  readonly lostAnswers: number;
}

const methodOf = (request: SimulatedRequest): string | null =>
  /^\/bot[^/]+\/([A-Za-z]+)$/.exec(request.path)?.[1]?.toLowerCase() ?? null;

export async function startTelegramSimulator(): Promise<TelegramSimulator> {
  const state = new TelegramState();
  const faults = new Map<string, TelegramFault[]>();
  let lostAnswers = 0;

  function handle(request: SimulatedRequest): SimulatedAnswer {
    const match = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(request.path);
    const method = methodOf(request);
    if (match === null || method === null) return fail(404, 'Not Found');
    const bot = state.bots.find((candidate) => candidate.token === match[1]);
    if (bot === undefined) return fail(401, 'Unauthorized');
    const fault = faults.get(method)?.shift();
    if (fault !== undefined && 'retryAfter' in fault) {
      const seconds = fault.retryAfter;
      return fail(429, `Too Many Requests: retry after ${String(seconds)}`, { retry_after: seconds });
    }
    if (fault !== undefined && 'refuse' in fault) return fail(fault.refuse.code, fault.refuse.description);
    const params = readParams(request);
    if (params === null) return fail(400, 'Bad Request: can\'t parse multipart/form-data');
    const answer = chatMethod(state, bot, method, params) ?? sendMethod(state, bot, method, params)
      ?? fail(404, 'Not Found');
    if (fault !== undefined && answer.status === 200) {
      lostAnswers += 1;
      return { ...answer, lose: true };
    }
    return answer;
  }

  // Multipart uploads reach 50 MB; a larger body is refused as Telegram's front refuses it.
  const server = await startSimulatorServer(handle, fail(404, 'Not Found'), {
    maxBodyBytes: 52 * 1024 * 1024,
    tooLarge: fail(413, 'Request Entity Too Large'),
    operations: telegramOperations(),
  });
  return {
    ...server,
    addBot: (bot) => { state.bots.push(bot); },
    addChat: (chat) => { state.chats.push(chat); },
    setMembership: (chatId, userId, membership) => {
      const chat = state.chats.find((candidate) => candidate.id === chatId);
      if (chat === undefined) throw new Error(`no simulated chat has the id ${String(chatId)}`);
      // A copy: chats may share one members map.
      chat.members = new Map([...chat.members, [userId, membership]]);
    },
    addUpdate: (botToken, chatId, text) => {
      const bot = state.bots.find((candidate) => candidate.token === botToken);
      if (bot === undefined) throw new Error(`no simulated bot has the token ${botToken}`);
      state.addUpdate(bot.id, chatId, text);
    },
    failNext: (method, ...added) => {
      const key = method.toLowerCase();
      faults.set(key, [...(faults.get(key) ?? []), ...added]);
    },
    messages: state.messages,
    calls: (method) => server.received.filter((request) => methodOf(request) === method.toLowerCase()),
    get lostAnswers() { return lostAnswers; },
  };
}
