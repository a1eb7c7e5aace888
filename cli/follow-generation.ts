import { z } from 'zod';
import type { ActiveCredential } from './active-credential.ts';
import { callApi, segment } from './api-client.ts';
import { CliError } from './cli-error.ts';
import { progressBar } from './progress-bar.ts';
import { terminal } from './terminal.ts';

/** How often a generation's media is looked at: ffmpeg reports about twice a second. */
const pollMs = 500;

const shownMedia = z.object({
  id: z.string(),
  status: z.enum(['pending', 'ready', 'failed']),
  error: z.string().optional(),
  reason: z.string().optional(),
  progress: z.object({ stage: z.string(), percent: z.number() }).optional(),
}).loose();

/**
 * Follows a generation the api answered 202 for: polls GET /media/:id, drawing its progress as a
 * bar on stderr with the stage it is at, until the media is ready (its JSON is returned) or
 * failed (a CliError with the server's message and reason).
 */
export async function followGeneration(credential: ActiveCredential, mediaId: string): Promise<unknown> {
  let stage = 'queued';
  const bar = progressBar('Generating', 100, terminal().stderr, () => stage);
  bar.update(0);
  try {
    for (;;) {
      const answer = await callApi(credential, { method: 'GET', path: `/media/${segment(mediaId)}` });
      const media = shownMedia.parse(answer.body);
      if (media.status === 'ready') {
        stage = 'done';
        bar.update(100);
        return answer.body;
      }
      if (media.status === 'failed') {
        const reason = media.reason === undefined ? '' : ` (${media.reason})`;
        throw new CliError(`the video could not be made: ${media.error ?? 'no reason given'}${reason}`);
      }
      if (media.progress !== undefined) {
        stage = media.progress.stage;
        bar.update(media.progress.percent);
      }
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  } finally {
    bar.finish();
  }
}
