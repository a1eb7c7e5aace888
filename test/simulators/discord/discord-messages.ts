import { z } from 'zod';
import { textLength } from '../../../shared/platforms/kit/text-length.ts';
import type { SimulatedAnswer, SimulatedRequest } from '../kit/simulator-server.ts';
import { readMessageBody } from './discord-attachments.ts';
import {
  defaultFileLimitBytes, discordError, invalidFormBody, isAnswer, isThread, missingPermissions, unknownMessage,
  type AttachmentRecord, type ChannelRecord, type DiscordWorld, type MessageRecord,
} from './discord-world.ts';

/**
 * Messages (resources/message): `POST /channels/{id}/messages` in a text or announcement channel
 * or a thread (JSON, or multipart with files), `GET /channels/{id}/messages` (newest first,
 * `before`/`after`/`limit`) and `GET /channels/{id}/messages/{id}`.
 * - `content` at most 2000 characters; a message needs content or a file (50006 otherwise);
 * - `nonce` at most 25 characters (or an integer); with `enforce_nonce: true`, a message the
 *   same author sent in the channel with the same nonce within the window ("the past few
 *   minutes"; 5 here, settable) is answered again instead of a second one being made;
 * - the bot needs VIEW_CHANNEL, SEND_MESSAGES (SEND_MESSAGES_IN_THREADS in a thread),
 *   ATTACH_FILES for files; without READ_MESSAGE_HISTORY the list is empty and a single
 *   message is refused;
 * - forum and media channels take no messages of their own (their posts are threads).
 * Facts: /work/shared/platforms/open-and-community.md 8.2, 8.3 and 8.5.
 */

const messageTypes = new Set([0, 5, 10, 11, 12]);

const nonce = z.union([z.string(), z.number().int()]).transform(String).nullable().optional();

const messageFields = z.object({
  content: z.string().optional(),
  nonce,
  enforce_nonce: z.boolean().optional(),
});

export interface MessageDraft {
  content: string;
  nonce: string | null;
  files: AttachmentRecord[];
}

/** Checks a message's content and files as Discord does; `path` prefixes field names (forum: `message`). */
export function draftOf(
  json: Record<string, unknown>,
  files: AttachmentRecord[],
  path: string[] = [],
): MessageDraft | SimulatedAnswer {
  const fields = messageFields.safeParse(json);
  if (!fields.success) {
    return invalidFormBody([...path, 'content'], 'MODEL_TYPE_CONVERT', 'Could not interpret the message.');
  }
  const content = fields.data.content ?? '';
  if (textLength(content, 'code-points') > 2000) {
    return invalidFormBody([...path, 'content'], 'BASE_TYPE_MAX_LENGTH', 'Must be 2000 or fewer in length.');
  }
  const sentNonce = fields.data.nonce ?? null;
  if (sentNonce !== null && sentNonce.length > 25) {
    return invalidFormBody([...path, 'nonce'], 'BASE_TYPE_MAX_LENGTH', 'Must be 25 or fewer in length.');
  }
  if (content.trim() === '' && files.length === 0) return discordError(400, 'Cannot send an empty message', 50_006);
  return { content, nonce: sentNonce, files };
}

export class DiscordMessages {
  /** How long an enforced nonce is remembered ("the past few minutes"). */
  nonceWindowMs = 5 * 60_000;
  readonly #world: DiscordWorld;

  constructor(world: DiscordWorld) {
    this.#world = world;
  }

  /** Stores a message the bot sent. */
  add(channel: ChannelRecord, draft: MessageDraft, id = this.#world.nextId()): MessageRecord {
    const message: MessageRecord = {
      id,
      channelId: channel.id,
      guildId: channel.guildId,
      authorId: this.#world.bot.id,
      content: draft.content,
      nonce: draft.nonce,
      attachments: draft.files,
      reactions: [],
      createdAt: Date.now(),
    };
    this.#world.messages.push(message);
    return message;
  }

  in(channelId: string): MessageRecord[] {
    return this.#world.messages.filter((message) => message.channelId === channelId);
  }

  fileLimitOf(channel: ChannelRecord): number {
    return this.#world.guild(channel.guildId)?.fileLimitBytes ?? defaultFileLimitBytes;
  }

  create(request: SimulatedRequest, channelId: string): SimulatedAnswer {
    const world = this.#world;
    const found = world.access(request, channelId);
    if (isAnswer(found)) return found;
    if (!messageTypes.has(found.type)) return discordError(400, 'Cannot send messages in a non-text channel', 50_008);
    const denied = world.denied(found);
    if (denied.includes(isThread(found) ? 'SEND_MESSAGES_IN_THREADS' : 'SEND_MESSAGES')) return missingPermissions;
    const body = readMessageBody(request, () => world.nextId(), {
      fileLimitBytes: this.fileLimitOf(found),
      mayAttach: !denied.includes('ATTACH_FILES'),
    });
    if (isAnswer(body)) return body;
    const draft = draftOf(body.json, body.files);
    if (isAnswer(draft)) return draft;
    if (draft.nonce !== null && body.json.enforce_nonce === true) {
      const since = Date.now() - this.nonceWindowMs;
      const earlier = this.in(found.id).find((message) => message.authorId === world.bot.id
        && message.nonce === draft.nonce && message.createdAt >= since);
      if (earlier !== undefined) return { status: 200, body: world.messageJson(earlier, true) };
    }
    return { status: 200, body: world.messageJson(this.add(found, draft), true) };
  }

  list(request: SimulatedRequest, channelId: string): SimulatedAnswer {
    const world = this.#world;
    const found = world.access(request, channelId);
    if (isAnswer(found)) return found;
    const limit = Number(request.query.get('limit') ?? '50');
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
      return invalidFormBody(['limit'], 'NUMBER_TYPE_MAX', 'int value should be between 1 and 100.');
    }
    if (world.denied(found).includes('READ_MESSAGE_HISTORY')) return { status: 200, body: [] };
    const after = request.query.get('after');
    const before = request.query.get('before');
    const newestFirst = this.in(found.id)
      .filter((message) => after === null || BigInt(message.id) > BigInt(after))
      .filter((message) => before === null || BigInt(message.id) < BigInt(before))
      .sort((a, b) => (BigInt(b.id) > BigInt(a.id) ? 1 : -1));
    // `after` pages forward from the id: the oldest `limit` after it, still newest first.
    const page = after === null ? newestFirst.slice(0, limit) : newestFirst.slice(-limit);
    return { status: 200, body: page.map((message) => world.messageJson(message)) };
  }

  /**
   * DELETE /channels/{id}/messages/{id}: 204 for the bot's own message; another author's needs
   * MANAGE_MESSAGES, which the simulated bot is never given (403); an unknown message is 10008.
   */
  remove(request: SimulatedRequest, channelId: string, messageId: string): SimulatedAnswer {
    const world = this.#world;
    const found = world.access(request, channelId);
    if (isAnswer(found)) return found;
    const index = world.messages.findIndex((message) => message.channelId === found.id && message.id === messageId);
    const message = world.messages[index];
    if (message === undefined) return unknownMessage;
    if (message.authorId !== world.bot.id) return missingPermissions;
    world.messages.splice(index, 1);
    return { status: 204 };
  }

  /**
   * DELETE /channels/{id} of a thread (a forum post among them): needs MANAGE_THREADS; the thread
   * and its messages go, and the answer is the thread as it was.
   */
  removeThread(request: SimulatedRequest, channelId: string): SimulatedAnswer {
    const world = this.#world;
    const found = world.access(request, channelId, ['MANAGE_THREADS']);
    if (isAnswer(found)) return found;
    if (!isThread(found)) return missingPermissions;
    const answer = world.channelJson(found);
    world.channels.delete(found.id);
    for (let index = world.messages.length - 1; index >= 0; index -= 1) {
      if (world.messages[index]?.channelId === found.id) world.messages.splice(index, 1);
    }
    return { status: 200, body: answer };
  }

  one(request: SimulatedRequest, channelId: string, messageId: string): SimulatedAnswer {
    const world = this.#world;
    const found = world.access(request, channelId, ['READ_MESSAGE_HISTORY']);
    if (isAnswer(found)) return found;
    const message = this.in(found.id).find((candidate) => candidate.id === messageId);
    return message === undefined ? unknownMessage : { status: 200, body: world.messageJson(message) };
  }
}
