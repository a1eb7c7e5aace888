import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import type { PartCheckpoint, PublishMedia } from '../kit/platform-adapter.ts';
import { PlatformError } from '../kit/platform-error.ts';
import type { SlackApi } from './slack-api.ts';
import { provider, SlackRefusal } from './slack-errors.ts';
import { findMessage, type SlackAuthor } from './slack-messages.ts';
import { earlierSend, sentKey } from './slack-send-once.ts';
import { fileKeys, uploadFiles } from './slack-uploads.ts';

/** How long SPS waits for Slack to show a completed upload's message. */
export interface ShareTuning {
  /**
   * Pauses before each look-up. Slack shares completed files asynchronously (it scans them
   * first), so the message usually appears a moment after files.completeUploadExternal answers.
   */
  shareWaitsMs: readonly number[];
  /** After this long without the message, a completed upload is no longer awaited but set aside. */
  shareTrustMs: number;
}

export const defaultShareTuning: ShareTuning = {
  shareWaitsMs: [0, 250, 500, 1_000, 2_000, 4_000],
  shareTrustMs: 10 * 60_000,
};

/** Set once files.completeUploadExternal answered ok: the files are shared, never to be completed again. */
const completedKey = 'completed';

const shareList = z.record(z.string(), z.array(z.object({ ts: z.string().min(1) }).loose()));
const completedAnswer = z.object({
  ok: z.literal(true),
  files: z.array(z.object({
    id: z.string(),
    shares: z.object({ public: shareList.optional(), private: shareList.optional() }).loose().optional(),
  }).loose()),
});

export interface FilePart {
  token: string;
  channel: string;
  threadTs: string | null;
  /** The part's text as sent (slackText), the message's `initial_comment`. */
  text: string;
  media: readonly PublishMedia[];
  checkpoint: PartCheckpoint;
  author: SlackAuthor;
  now: () => number;
}

/** The message ts the completion's answer names for this channel, when Slack already shared the files. */
function sharedTs(answer: z.infer<typeof completedAnswer>, channel: string): string | null {
  for (const file of answer.files) {
    const share = file.shares?.public?.[channel]?.[0] ?? file.shares?.private?.[channel]?.[0];
    if (share !== undefined) return share.ts;
  }
  return null;
}

/**
 * Shares the part's files in one message with its text: the uploads (slack-uploads.ts), then
 * files.completeUploadExternal with the file ids, `channel_id`, `thread_ts` for a later part, and
 * the text as `initial_comment`. That answer describes the files, not the message: its ts (the
 * part's release id) is read from the files' `shares` when Slack already shared them, and
 * otherwise from the channel (conversations.history, or conversations.replies in a thread): the
 * bot's message carrying the first file id, polled while Slack finishes sharing.
 *
 * Exactly once: `sentAt` is checkpointed before the completion and `completed` after its answer.
 * A retry after a completion without an answer looks for the message first; a completed upload
 * is only ever looked for, never completed again (a message not shown after `shareTrustMs` is
 * set aside as 'unconfirmed'). Files whose bytes arrived are completed, not uploaded again.
 */
export async function shareFilesOnce(api: SlackApi, part: FilePart, tuning: ShareTuning): Promise<string> {
  const { checkpoint } = part;
  const earlier = earlierSend(checkpoint);
  const heldFileId = checkpoint.values[fileKeys(0).id] ?? '';
  if (earlier !== null && heldFileId !== '') {
    const found = await awaitShare(api, part, heldFileId, earlier, tuning);
    if (found !== null) return found;
    if (checkpoint.values[completedKey] === '1') throw notShown(part.now() - earlier < tuning.shareTrustMs);
  }
  const files = await uploadFiles(api, part.token, part.media, checkpoint);
  const sentAt = earlier ?? part.now();
  if (earlier === null) await checkpoint.save({ [sentKey]: String(sentAt) });
  const form = {
    files: JSON.stringify(files),
    channel_id: part.channel,
    ...(part.threadTs === null ? {} : { thread_ts: part.threadTs }),
    ...(part.text === '' ? {} : { initial_comment: part.text }),
  };
  let answer: z.infer<typeof completedAnswer>;
  try {
    answer = await api.call(part.token, 'files.completeUploadExternal', { form }, completedAnswer, { accepted: true });
  } catch (error) {
    if (!(error instanceof SlackRefusal)) throw error;
    if (earlier === null) {
      await checkpoint.save({ [sentKey]: '' });
      throw error;
    }
    // The earlier completion had no answer; refusing the same files now may mean it went through.
    if (error.kind !== 'permanent') throw error;
    const found = await awaitShare(api, part, files[0]?.id ?? '', earlier, tuning);
    if (found !== null) return found;
    const message = `${error.message}; an earlier attempt may have shared these files and SPS could not find them`;
    throw new PlatformError({ kind: 'unconfirmed', provider, message, cause: error });
  }
  await checkpoint.save({ [completedKey]: '1' });
  const ts = sharedTs(answer, part.channel) ?? await awaitShare(api, part, files[0]?.id ?? '', sentAt, tuning);
  if (ts !== null) return ts;
  throw notShown(true);
}

/** The bot's message carrying `fileId` in the part's channel or thread, polled while Slack shares it. */
async function awaitShare(
  api: SlackApi, part: FilePart, fileId: string, sinceMs: number, tuning: ShareTuning,
): Promise<string | null> {
  for (const wait of tuning.shareWaitsMs) {
    if (wait > 0) await sleep(wait);
    const found = await findMessage(api, part.token, {
      channel: part.channel,
      threadTs: part.threadTs,
      sinceMs,
      author: part.author,
      matches: (message) => message.files?.some((file) => file.id === fileId) === true,
    });
    if (found !== null) return found;
  }
  return null;
}

function notShown(stillAwaited: boolean): PlatformError {
  return stillAwaited
    ? new PlatformError({
      kind: 'retryable',
      provider,
      message: 'Slack completed the upload but has not shown its message yet',
    })
    : new PlatformError({
      kind: 'unconfirmed',
      provider,
      message: 'Slack completed the upload long ago and SPS cannot find its message in the channel',
    });
}
