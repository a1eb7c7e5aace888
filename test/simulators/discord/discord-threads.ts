import { z } from 'zod';
import { textLength } from '../../../shared/platforms/kit/text-length.ts';
import type { SimulatedAnswer, SimulatedRequest } from '../kit/simulator-server.ts';
import { readMessageBody } from './discord-attachments.ts';
import { draftOf, type DiscordMessages } from './discord-messages.ts';
import {
  discordError, invalidFormBody, isAnswer, isThread, unknownMessage, type ChannelRecord, type DiscordWorld,
} from './discord-world.ts';

/**
 * Threads (resources/channel):
 * - `POST /channels/{id}/messages/{id}/threads` `{name (1-100), auto_archive_duration?}` starts a
 *   thread from a message of a text (type 0) or announcement (5) channel; the thread's id is the
 *   message's; a second start from the same message is refused with 160004; needs
 *   CREATE_PUBLIC_THREADS;
 * - `POST /channels/{id}/threads` in a forum (15) or media (16) channel `{name, message:
 *   {content, attachments}}` (JSON, or multipart with files) makes a post: a thread whose
 *   starter message has the thread's id; needs SEND_MESSAGES; it takes no nonce;
 * - `GET /guilds/{id}/threads/active` lists the guild's threads that are not archived.
 * Facts: /work/shared/platforms/open-and-community.md 8.4.
 */

const archiveDurations = new Set([60, 1440, 4320, 10080]);

const threadStart = z.object({
  name: z.string().optional(),
  auto_archive_duration: z.number().int().optional(),
  message: z.record(z.string(), z.unknown()).optional(),
});

const wrongChannelType = discordError(400, 'Cannot execute action on this channel type', 50_024);

/** The start's name and archive duration as Discord checks them; `name` is required. */
function checkStart(json: Record<string, unknown>): z.infer<typeof threadStart> & { name: string } | SimulatedAnswer {
  const start = threadStart.safeParse(json);
  if (!start.success) return invalidFormBody(['name'], 'MODEL_TYPE_CONVERT', 'Could not interpret the thread.');
  const name = start.data.name?.trim() ?? '';
  if (name === '') return invalidFormBody(['name'], 'BASE_TYPE_REQUIRED', 'This field is required');
  if (textLength(name, 'code-points') > 100) {
    return invalidFormBody(['name'], 'BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 100 in length.');
  }
  const duration = start.data.auto_archive_duration;
  if (duration !== undefined && !archiveDurations.has(duration)) {
    const message = 'Value must be one of {60, 1440, 4320, 10080}.';
    return invalidFormBody(['auto_archive_duration'], 'BASE_TYPE_CHOICES', message);
  }
  return { ...start.data, name };
}

export class DiscordThreads {
  readonly #world: DiscordWorld;
  readonly #messages: DiscordMessages;

  constructor(world: DiscordWorld, messages: DiscordMessages) {
    this.#world = world;
    this.#messages = messages;
  }

  /** Threads made since the simulator started, oldest first. */
  all(): ChannelRecord[] {
    return [...this.#world.channels.values()].filter(isThread);
  }

  #open(parent: ChannelRecord, id: string, name: string, type: number): ChannelRecord {
    const thread: ChannelRecord = {
      id, type, name, guildId: parent.guildId, parentId: parent.id, ownerId: this.#world.bot.id, createdAt: Date.now(),
    };
    this.#world.channels.set(id, thread);
    return thread;
  }

  fromMessage(request: SimulatedRequest, channelId: string, messageId: string): SimulatedAnswer {
    const world = this.#world;
    const parent = world.access(request, channelId, ['CREATE_PUBLIC_THREADS']);
    if (isAnswer(parent)) return parent;
    if (parent.type !== 0 && parent.type !== 5) return wrongChannelType;
    const message = this.#messages.in(parent.id).find((candidate) => candidate.id === messageId);
    if (message === undefined) return unknownMessage;
    if (world.channels.has(message.id)) {
      return discordError(400, 'A thread has already been created for this message', 160_004);
    }
    const json = (() => {
      try {
        return JSON.parse(request.text) as unknown;
      } catch {
        // Discord reads a body it cannot parse as one without a name.
        return {};
      }
    })();
    const start = checkStart(typeof json === 'object' && json !== null ? json as Record<string, unknown> : {});
    if (isAnswer(start)) return start;
    // An announcement channel's threads are announcement threads (10); a text channel's are public (11).
    const thread = this.#open(parent, message.id, start.name, parent.type === 5 ? 10 : 11);
    return { status: 201, body: world.channelJson(thread) };
  }

  forumPost(request: SimulatedRequest, channelId: string): SimulatedAnswer {
    const world = this.#world;
    const forum = world.access(request, channelId, ['SEND_MESSAGES']);
    if (isAnswer(forum)) return forum;
    if (forum.type !== 15 && forum.type !== 16) return wrongChannelType;
    const body = readMessageBody(request, () => world.nextId(), {
      fileLimitBytes: this.#messages.fileLimitOf(forum),
      mayAttach: !world.denied(forum).includes('ATTACH_FILES'),
      attachmentsAt: 'message',
    });
    if (isAnswer(body)) return body;
    const start = checkStart(body.json);
    if (isAnswer(start)) return start;
    if (start.message === undefined) {
      return invalidFormBody(['message'], 'BASE_TYPE_REQUIRED', 'This field is required');
    }
    // A forum post's message carries no nonce: only a message send has one.
    const { nonce: _ignored, ...message } = start.message;
    const draft = draftOf(message, body.files, ['message']);
    if (isAnswer(draft)) return draft;
    const thread = this.#open(forum, world.nextId(), start.name, 11);
    const starter = this.#messages.add(thread, { ...draft, nonce: null }, thread.id);
    return { status: 201, body: { ...world.channelJson(thread), message: world.messageJson(starter) } };
  }

  active(request: SimulatedRequest, guildId: string): SimulatedAnswer {
    const guild = this.#world.guildAccess(request, guildId);
    if (isAnswer(guild)) return guild;
    const threads = this.all().filter((thread) => thread.guildId === guild.id);
    const body = { threads: threads.map((thread) => this.#world.channelJson(thread)), members: [], has_more: false };
    return { status: 200, body };
  }
}
