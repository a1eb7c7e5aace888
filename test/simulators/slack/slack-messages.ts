import { textLength } from '../../../shared/platforms/kit/text-length.ts';
import type { SimulatedAnswer } from '../kit/simulator-server.ts';
import { booleanArgument, page, slackOk, slackRefused, textArgument } from './slack-answers.ts';
import { channelOf, historyScope, missingScope, type SlackCall } from './slack-call.ts';
import {
  botId, botUserId, conversationObject, messageObject, tsNumber, type SlackMessage, type SlackRecords,
} from './slack-records.ts';

/** Slack truncates longer text; the simulator refuses it as chat.postMessage documents (`msg_too_long`). */
export const maxTextCharacters = 40_000;

/** Slack stores a bare link it recognizes as `<url>`, as history then shows it. */
export function wrapLinks(text: string): string {
  return text.replace(/(^|\s)((?:https?:\/\/)[^\s<>]+)/g, '$1<$2>');
}

/** chat.postMessage's presentation arguments, recorded as sent. */
const optionNames = ['username', 'icon_url', 'icon_emoji', 'unfurl_links', 'unfurl_media', 'mrkdwn'] as const;

/**
 * chat.postMessage, conversations.history / replies / info / join / list and reactions.get, as
 * the Web API runs them for a bot token (open-and-community.md 9.2, 9.4, 9.6, 9.8).
 */
export class SlackMessageMethods {
  readonly #records: SlackRecords;

  constructor(records: SlackRecords) {
    this.#records = records;
  }

  /**
   * A message needs `text` (blocks are not simulated) of at most 40,000 characters, in a channel
   * the bot is in; `thread_ts` must name a top-level message of that channel, never a reply.
   */
  postMessage(call: SlackCall): SimulatedAnswer {
    const scope = missingScope(call, 'chat:write');
    if (scope !== null) return scope;
    const found = channelOf(call, 'channel', { member: true, open: true });
    if ('refusal' in found) return found.refusal;
    const text = textArgument(call.values, 'text') ?? '';
    if (text.trim() === '') return slackRefused('no_text');
    if (textLength(text, 'code-points') > maxTextCharacters) return slackRefused('msg_too_long');
    const threadTs = textArgument(call.values, 'thread_ts');
    const teamId = call.workspace.teamId;
    if (threadTs !== null) {
      const parent = this.#records.message(teamId, found.channel.id, threadTs);
      if (parent === undefined || parent.threadTs !== null) return slackRefused('thread_not_found');
    }
    // Without chat:write.customize Slack ignores a custom name and icon.
    const customize = call.scopes.includes('chat:write.customize');
    const options = Object.fromEntries(optionNames.flatMap((name) =>
      (call.values[name] === undefined || (!customize && /^(username|icon_)/.test(name))
        ? []
        : [[name, call.values[name]]])));
    const message: SlackMessage = {
      teamId,
      channel: found.channel.id,
      ts: this.#records.nextTs(),
      threadTs,
      user: botUserId,
      botId,
      text: wrapLinks(text),
      files: [],
      broadcast: threadTs !== null && booleanArgument(call.values, 'reply_broadcast') === true,
      options,
      reactions: [],
    };
    this.#records.messages.push(message);
    return slackOk({ channel: message.channel, ts: message.ts, message: messageObject(this.#records, message) });
  }

  /**
   * chat.delete (chat:write): the bot's own message goes (`{channel, ts}`); an unknown one is
   * `message_not_found`, another user's `cant_delete_message`. A thread's replies stay.
   */
  deleteMessage(call: SlackCall): SimulatedAnswer {
    const scope = missingScope(call, 'chat:write');
    if (scope !== null) return scope;
    const found = channelOf(call, 'channel');
    if ('refusal' in found) return found.refusal;
    const ts = textArgument(call.values, 'ts') ?? '';
    const message = this.#records.message(call.workspace.teamId, found.channel.id, ts);
    if (message === undefined) return slackRefused('message_not_found');
    if (message.botId !== botId) return slackRefused('cant_delete_message');
    this.#records.messages.splice(this.#records.messages.indexOf(message), 1);
    return slackOk({ channel: found.channel.id, ts });
  }

  /** Top-level messages (and broadcast replies), newest first, after `oldest` (exclusive unless `inclusive`). */
  history(call: SlackCall): SimulatedAnswer {
    const found = channelOf(call, 'channel');
    if ('refusal' in found) return found.refusal;
    const scope = missingScope(call, historyScope(found.channel));
    if (scope !== null) return scope;
    if (found.channel.botIsMember !== true) return slackRefused('not_in_channel');
    const after = this.#after(call);
    const listed = this.#records.inChannel(found.channel.id)
      .filter((message) => message.teamId === call.workspace.teamId)
      .filter((message) => message.threadTs === null || message.broadcast)
      .filter(after)
      .reverse();
    const paged = page(listed, call.values);
    if (paged === null) return slackRefused('invalid_cursor');
    // Pins and channel actions are not simulated: Slack still sends their counts.
    return slackOk({
      messages: paged.items.map((message) => messageObject(this.#records, message)),
      has_more: paged.nextCursor !== '',
      pin_count: 0,
      channel_actions_ts: null,
      channel_actions_count: 0,
      response_metadata: { next_cursor: paged.nextCursor },
    });
  }

  /** A thread: its top-level message first, then its replies after `oldest`, oldest first. */
  replies(call: SlackCall): SimulatedAnswer {
    const found = channelOf(call, 'channel');
    if ('refusal' in found) return found.refusal;
    const scope = missingScope(call, historyScope(found.channel));
    if (scope !== null) return scope;
    if (found.channel.botIsMember !== true) return slackRefused('not_in_channel');
    const ts = textArgument(call.values, 'ts');
    if (ts === null) return slackRefused('invalid_arguments');
    const parent = this.#records.message(call.workspace.teamId, found.channel.id, ts);
    if (parent === undefined) return slackRefused('thread_not_found');
    const root = parent.threadTs === null
      ? parent
      : this.#records.message(call.workspace.teamId, found.channel.id, parent.threadTs) ?? parent;
    const thread = [root, ...this.#records.replies(root).filter(this.#after(call))];
    const paged = page(thread, call.values);
    if (paged === null) return slackRefused('invalid_cursor');
    return slackOk({
      messages: paged.items.map((message) => messageObject(this.#records, message)),
      has_more: paged.nextCursor !== '',
      response_metadata: { next_cursor: paged.nextCursor },
    });
  }

  /** One message with its reactions (`reactions:read`), as `{type: 'message', channel, message}`. */
  reactions(call: SlackCall): SimulatedAnswer {
    const scope = missingScope(call, 'reactions:read');
    if (scope !== null) return scope;
    const found = channelOf(call, 'channel');
    if ('refusal' in found) return found.refusal;
    const timestamp = textArgument(call.values, 'timestamp');
    const message = timestamp === null
      ? undefined
      : this.#records.message(call.workspace.teamId, found.channel.id, timestamp);
    if (message === undefined) return slackRefused('message_not_found');
    return slackOk({ type: 'message', channel: found.channel.id, message: messageObject(this.#records, message) });
  }

  info(call: SlackCall): SimulatedAnswer {
    const found = channelOf(call, 'channel');
    if ('refusal' in found) return found.refusal;
    const scope = missingScope(call, found.channel.isPrivate ? 'groups:read' : 'channels:read');
    if (scope !== null) return scope;
    const { channel } = found;
    const members = (channel.members ?? 0) + (channel.botIsMember === true ? 1 : 0);
    const counted = booleanArgument(call.values, 'include_num_members') === true ? { num_members: members } : {};
    return slackOk({ channel: conversationObject(channel, counted) });
  }

  /** Public channels only; joining one the bot is in answers ok with a warning. */
  join(call: SlackCall): SimulatedAnswer {
    const scope = missingScope(call, 'channels:join');
    if (scope !== null) return scope;
    const found = channelOf(call, 'channel', { open: true });
    if ('refusal' in found) return found.refusal;
    const { channel } = found;
    if (channel.isPrivate) return slackRefused('method_not_supported_for_channel_type');
    const already = channel.botIsMember === true;
    channel.botIsMember = true;
    return slackOk({
      channel: conversationObject(channel),
      ...(already ? { warning: 'already_in_channel', response_metadata: { warnings: ['already_in_channel'] } } : {}),
    });
  }

  /** The channels a bot token sees: every public one, and the private ones it was invited to. */
  list(call: SlackCall): SimulatedAnswer {
    const types = (textArgument(call.values, 'types') ?? 'public_channel').split(',');
    const scope = missingScope(call, types.includes('private_channel') ? 'groups:read' : 'channels:read')
      ?? (types.includes('public_channel') ? missingScope(call, 'channels:read') : null);
    if (scope !== null) return scope;
    const excludeArchived = booleanArgument(call.values, 'exclude_archived') === true;
    const listed = call.workspace.channels.filter((channel) =>
      types.includes(channel.isPrivate ? 'private_channel' : 'public_channel')
      && !(channel.isPrivate && channel.botIsMember !== true)
      && !(excludeArchived && channel.isArchived === true));
    // Slack may answer fewer channels than asked for: two a page, so clients' cursor paging is exercised.
    const paged = page(listed, { ...call.values, limit: '2' });
    if (paged === null) return slackRefused('invalid_cursor');
    const channels = paged.items.map((channel) => conversationObject(channel));
    return slackOk({ channels, response_metadata: { next_cursor: paged.nextCursor } });
  }

  #after(call: SlackCall): (message: SlackMessage) => boolean {
    const oldest = Number(textArgument(call.values, 'oldest') ?? '0');
    const inclusive = booleanArgument(call.values, 'inclusive') === true;
    return (message) => (inclusive ? tsNumber(message.ts) >= oldest : tsNumber(message.ts) > oldest);
  }
}
