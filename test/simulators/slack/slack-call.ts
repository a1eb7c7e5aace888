import type { SimulatedAnswer } from '../kit/simulator-server.ts';
import { slackRefused, textArgument } from './slack-answers.ts';
import type { SimulatedSlackChannel, SimulatedSlackWorkspace } from './slack-records.ts';

/** One authenticated method call: whose workspace, which scopes its token holds, and its arguments. */
export interface SlackCall {
  workspace: SimulatedSlackWorkspace;
  scopes: readonly string[];
  values: Record<string, unknown>;
}

/** Slack's refusal of a token without the scope a method needs. */
export function missingScope(call: SlackCall, ...anyOf: string[]): SimulatedAnswer | null {
  if (anyOf.some((scope) => call.scopes.includes(scope))) return null;
  return slackRefused('missing_scope', { needed: anyOf.join(','), provided: call.scopes.join(',') });
}

/** The scope a read of this channel's messages needs: channels:history, or groups:history for a private one. */
export const historyScope = (channel: SimulatedSlackChannel): string =>
  (channel.isPrivate ? 'groups:history' : 'channels:history');

export interface ChannelNeeds {
  /** The bot must be in the channel (posting, uploading, reading history). */
  member?: boolean;
  /** The channel must not be archived (posting, joining). */
  open?: boolean;
}

/**
 * The channel an argument names, or Slack's refusal: a channel that does not exist, or a private
 * one the bot was not invited to (Slack does not tell those apart), is `channel_not_found`; an
 * archived one `is_archived`; one the bot is not in, where membership is needed, `not_in_channel`.
 */
export function channelOf(
  call: SlackCall,
  argument: string,
  needs: ChannelNeeds = {},
): { channel: SimulatedSlackChannel } | { refusal: SimulatedAnswer } {
  const id = textArgument(call.values, argument) ?? '';
  const channel = call.workspace.channels.find((candidate) => candidate.id === id);
  if (channel === undefined || (channel.isPrivate && channel.botIsMember !== true)) {
    return { refusal: slackRefused('channel_not_found') };
  }
  if (needs.open === true && channel.isArchived === true) return { refusal: slackRefused('is_archived') };
  if (needs.member === true && channel.botIsMember !== true) return { refusal: slackRefused('not_in_channel') };
  return { channel };
}
