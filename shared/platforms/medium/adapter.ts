import { z } from 'zod';
import { withMarkdownImages } from '../kit/content-format.ts';
import type { AdapterOptions, PlatformAdapter, PublishInput, PublishResult } from '../kit/platform-adapter.ts';
import type { PlatformApp } from '../kit/platform-connect.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { parseInput } from '../kit/parse-input.ts';
import { sendOnce } from '../kit/send-once.ts';
import { mediumSettings } from './definition.ts';
import { mediumApi, mediumUserId, provider, unreadable, type MediumApi } from './medium-api.ts';

const createdStory = z.object({ data: z.object({ id: z.string().min(1), url: z.string() }) });
const publicationList = z.object({
  data: z.array(z.object({ id: z.string(), name: z.string(), description: z.string().optional(), url: z.string() })),
});
const contributorList = z.object({
  data: z.array(z.object({ publicationId: z.string(), userId: z.string(), role: z.enum(['editor', 'writer']) })),
});

/** The story's fields (design-blogging-business.md 3.2); Medium fetches the images in the text itself. */
function storyOf(input: PublishInput): { path: (userId: string) => string; story: Record<string, unknown> } {
  const settings = parseInput(provider, 'Medium settings', mediumSettings, input.settings);
  if (input.media.some((item) => item.kind !== 'image')) {
    throw new PlatformError({ kind: 'permanent', provider, message: 'Medium stories take images only' });
  }
  const { publicationId, ...fields } = settings;
  const content = withMarkdownImages(input.content, input.media.map(({ url, alt }) => ({ url, alt })));
  return {
    path: (userId) => (publicationId === undefined
      ? `/users/${encodeURIComponent(userId)}/posts`
      : `/publications/${encodeURIComponent(publicationId)}/posts`),
    story: { ...fields, contentFormat: 'markdown', content },
  };
}

/** Medium cannot say whether an unanswered send made a story: no API lists a user's stories. */
function cannotLook(): Promise<never> {
  const message = 'Medium may have published the story before its answer was lost, and its API cannot list '
    + 'stories to check: look at the profile, and record the story\'s address or publish again';
  return Promise.reject(new PlatformError({ kind: 'unconfirmed', provider, message }));
}

async function publicationsOf(api: MediumApi, channel: PublishInput['channel']) {
  const userId = await mediumUserId(api, channel);
  const path = `/users/${encodeURIComponent(userId)}/publications`;
  const answer = publicationList.safeParse(await api(channel, { method: 'GET', path }));
  if (!answer.success) throw unreadable('publications', answer.error);
  return answer.data.data.map(({ id, name, description, url }) => ({ id, name, description: description ?? '', url }));
}

/**
 * Publishes stories to Medium's legacy API v1 (design-blogging-business.md, section 3) with the
 * user's integration token, on the user's profile or in a publication, as Markdown. Medium takes
 * no idempotency key and has no way to list stories, so exactly once is a send mark checkpointed
 * before `POST …/posts`: a refusal Medium answered clears it, and an attempt that finds it (the
 * answer was lost, or the worker died) stops as `unconfirmed` for the user to check instead of
 * risking a second story. For the same reason there are no analytics and no recent content.
 */
export function createMediumAdapter(options: AdapterOptions, app: Pick<PlatformApp, 'apiUrl'>): PlatformAdapter {
  const api = mediumApi(app.apiUrl, options.timeoutMs);

  async function publish(input: PublishInput): Promise<PublishResult> {
    const { path, story } = storyOf(input);
    // Read before the mark: a failure here has sent nothing, so the next attempt may send.
    const userId = await mediumUserId(api, input.channel);
    const made = await sendOnce({
      checkpoint: input.checkpoint,
      now: Date.now,
      find: cannotLook,
      send: async () => {
        const call = { method: 'POST', path: path(userId), json: story } as const;
        const answer = createdStory.safeParse(await api(input.channel, call));
        if (answer.success) return answer.data.data;
        const message = 'Medium accepted the story but answered without an id SPS could read';
        throw new PlatformError({ kind: 'unconfirmed', provider, message, cause: answer.error });
      },
    });
    return { releaseId: made.id, releaseURL: made.url };
  }

  return {
    provider,
    publish,

    comment() {
      const message = 'Medium has no comments through its API; a post to Medium has one part';
      return Promise.reject(new PlatformError({ kind: 'permanent', provider, message }));
    },

    /** Medium's API has no read of a user's stories: nothing to offer for picking a missing release. */
    recentContent() {
      return Promise.resolve([]);
    },

    tools: {
      publications: (channel) => publicationsOf(api, channel),

      async contributors(channel, data) {
        const schema = z.object({ publicationId: z.string().trim().min(1) });
        const { publicationId } = parseInput(provider, 'contributors tool', schema, data);
        const path = `/publications/${encodeURIComponent(publicationId)}/contributors`;
        const answer = contributorList.safeParse(await api(channel, { method: 'GET', path }));
        if (!answer.success) throw unreadable('contributors', answer.error);
        return answer.data.data;
      },
    },
  };
}
