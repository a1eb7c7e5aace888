import { z } from 'zod';
import { PlatformError, type PlatformErrorKind } from '../kit/platform-error.ts';
import { resetHeaderWaitMs } from '../kit/rate-limit-reset.ts';
import { retryAfterHeaderMs } from '../kit/retry-after.ts';
import { unreadableAnswer } from '../kit/unreadable-answer.ts';

export const provider = 'discord';

/** Discord's error body: `{message, code, errors?}`; a 429 adds `retry_after` (seconds, float) and `global`. */
const errorBody = z.object({
  message: z.string(),
  code: z.number().int().optional(),
  errors: z.unknown().optional(),
  retry_after: z.number().nonnegative().optional(),
  global: z.boolean().optional(),
});

/** Discord's JSON error codes SPS acts on (topics/opcodes-and-status-codes). */
export const discordCodes = {
  unknownChannel: 10_003,
  unknownMessage: 10_008,
  slowmode: 20_016,
  channelWriteLimit: 20_028,
  requestTooLarge: 40_005,
  missingAccess: 50_001,
  missingPermissions: 50_013,
  invalidFormBody: 50_035,
  resourceOverloaded: 130_000,
  threadAlreadyCreated: 160_004,
} as const;

/** The code of a Discord refusal, read from the body PlatformError keeps; null for anything else. */
export function discordCodeOf(error: unknown): number | null {
  if (!(error instanceof PlatformError) || error.provider !== provider) return null;
  const parsed = errorBody.safeParse(error.body);
  return parsed.success ? parsed.data.code ?? null : null;
}

const fieldErrors = z.object({ _errors: z.array(z.object({ message: z.string() })) });

/** `errors` of a 50035 mirrors the body; each refused field holds `_errors`: "content: Must be 2000 or fewer...". */
function fieldProblems(errors: unknown, path: string[] = []): string[] {
  if (typeof errors !== 'object' || errors === null) return [];
  const here = fieldErrors.safeParse(errors);
  if (here.success) return here.data._errors.map((item) => `${path.join('.')}: ${item.message}`);
  return Object.entries(errors).flatMap(([key, inner]) => fieldProblems(inner, [...path, key]));
}

/** What the user can do about a refusal that is about the bot's place in the server, not the post. */
const advice: Readonly<Record<number, string>> = {
  [discordCodes.missingAccess]:
    'the bot cannot see this channel: add the bot to the server again, or give it View Channel there',
  [discordCodes.missingPermissions]:
    'the bot lacks a permission this post needs in the channel (View Channel, Send Messages, Attach Files, '
    + 'Read Message History, Create Public Threads, Send Messages in Threads): grant it, or add the bot to the '
    + 'server again',
  [discordCodes.unknownChannel]:
    'the channel was deleted or the bot cannot reach it: pick another channel (see the channels tool) or add the '
    + 'bot to the server again',
  [discordCodes.requestTooLarge]:
    'the files are larger than this server lets the bot send (10 MiB a file unless server boosts raise it, '
    + '25 MiB a message)',
};

/**
 * Discord's own words with its code, and for refusals about the bot's access what to do. A 401
 * refuses the bot token, which is the operator's (DISCORD_BOT_TOKEN), not the user's: reconnecting
 * cannot fix it, and the message says so.
 */
export function discordErrorMessage(body: unknown): string | undefined {
  const parsed = errorBody.safeParse(body);
  if (!parsed.success) return undefined;
  const { message, code, errors, retry_after: retryAfter } = parsed.data;
  if (/^401\b/.test(message)) {
    return `Discord refused the bot token of this SPS installation (${message}): the operator must set a valid `
      + 'DISCORD_BOT_TOKEN; connecting the channel again does not change it';
  }
  const said = code === undefined ? `Discord: ${message}` : `Discord: ${message} (${String(code)})`;
  const problems = code === discordCodes.invalidFormBody ? fieldProblems(errors) : [];
  if (problems.length > 0) return `${said}: ${problems.join('; ')}`;
  const tip = code === undefined ? undefined : advice[code];
  if (tip !== undefined) return `${said}: ${tip}`;
  return retryAfter === undefined ? said : `${said}, retry after ${String(retryAfter)} s`;
}

/**
 * 401 is the bot token (disconnected, as the contract names a refused credential); 429 and the
 * codes for a channel's write limit, slowmode and an overloaded resource are waits; the codes
 * about access, permissions, the channel and file sizes are permanent for this post. Anything
 * else falls back to the HTTP status.
 */
export function classifyDiscordRefusal(status: number, body: unknown): PlatformErrorKind | undefined {
  if (status === 401) return 'disconnected';
  if (status === 429) return 'retryable';
  const parsed = errorBody.safeParse(body);
  const code = parsed.success ? parsed.data.code : undefined;
  if (code === discordCodes.channelWriteLimit || code === discordCodes.slowmode) return 'retryable';
  if (code === discordCodes.resourceOverloaded) return 'retryable';
  if (code !== undefined && advice[code] !== undefined) return 'permanent';
  return undefined;
}

/**
 * How long a 429 asks to wait: the body's `retry_after` (seconds with a fraction, the precise
 * one), else `X-RateLimit-Reset-After`, else `Retry-After` (whole seconds). Other refusals keep
 * Retry-After alone.
 */
export function discordRetryAfterMs(
  status: number,
  header: (name: string) => string | null,
  now: number,
  body: unknown,
): number | null {
  const retryAfter = retryAfterHeaderMs(header, now);
  if (status !== 429) return retryAfter;
  const parsed = errorBody.safeParse(body);
  if (parsed.success && parsed.data.retry_after !== undefined) return Math.ceil(parsed.data.retry_after * 1000);
  return resetHeaderWaitMs(header('x-ratelimit-reset-after'), 'seconds', now) ?? retryAfter;
}

export function unreadable(what: string, cause?: unknown): PlatformError {
  return unreadableAnswer(provider, `Discord answered with ${what}`, { cause });
}

export function refused(message: string): PlatformError {
  return new PlatformError({ kind: 'permanent', provider, message });
}
