import { z } from 'zod';
import type {
  AdapterOptions, ChannelCredentials, PlatformAdapter, PublishInput, PublishResult,
} from '../kit/platform-adapter.ts';
import type { PlatformApp } from '../kit/platform-connect.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { platformRequest, type PlatformRequest } from '../kit/platform-http.ts';
import { unreadableAnswer } from '../kit/unreadable-answer.ts';
import { dribbbleSettings } from './definition.ts';
import { classifyDribbbleRefusal, dribbbleErrorMessage, dribbbleRetryAfterMs } from './dribbble-errors.ts';
import { earlierShot, shotAttempt, shotsAnswer } from './shot-once.ts';
import { trailingSlashes } from '../../net/trailing-slashes.ts';
import { removedEvenIfGone } from '../kit/platform-removal.ts';

const provider = 'dribbble';

const player = z.object({
  followers_count: z.number().int().optional(),
  teams: z.array(z.object({
    id: z.number().int(),
    name: z.string(),
    login: z.string().optional(),
    avatar_url: z.string().nullable().optional(),
    html_url: z.string().optional(),
  })).default([]),
});

/** The answer to an upload: 202 and the shot's address in Location (`…/v2/shots/{id}`). */
const accepted = z.object({ status: z.number(), headers: z.object({ location: z.string().nullable() }) });

export const shotUrl = (id: string): string => `https://dribbble.com/shots/${id}`;

function unreadable(what: string): PlatformError {
  return unreadableAnswer(provider, `Dribbble answered ${what}`);
}

type DribbbleCall = Pick<PlatformRequest, 'method' | 'multipart' | 'withStatus' | 'readHeaders'> & {
  path: string;
  /** For the upload: longer than the default. */
  timeoutMs?: number;
};

/**
 * Publishes shots through the Dribbble API v2 (design-blogging-business.md, section 2): one
 * `POST /v2/shots` multipart upload carries the image, the title, the post's text as
 * description, tags (one comma-separated field, as Dribbble's Sketch plugin sends them), team_id
 * and low_profile. Dribbble answers 202 with the new shot's address in Location and processes
 * the image afterwards. It has no comments, so a later part is refused.
 *
 * Exactly once (shot-once.ts): Dribbble takes no idempotency key. The part's checkpoint is
 * marked before the upload; an attempt that finds the mark (the worker died, or the answer was
 * lost, after Dribbble may have made the shot) first reads the player's shots and takes the one
 * with this title made since the mark, and uploads again only when there is none. An accept
 * without a readable Location is 'unconfirmed': the shot exists, its id is unknown.
 */
export function createDribbbleAdapter(options: AdapterOptions, app: Pick<PlatformApp, 'apiUrl'>): PlatformAdapter {
  const origin = app.apiUrl.replace(trailingSlashes, '');

  function call(channel: ChannelCredentials, request: DribbbleCall): Promise<unknown> {
    const { path, timeoutMs, ...rest } = request;
    return platformRequest({
      provider,
      ...rest,
      timeoutMs: timeoutMs ?? options.timeoutMs,
      url: `${origin}${path}`,
      headers: { Authorization: `Bearer ${channel.accessToken}` },
      errorMessage: dribbbleErrorMessage,
      classify: classifyDribbbleRefusal,
      retryAfterMs: dribbbleRetryAfterMs,
    });
  }

  async function me(channel: ChannelCredentials): Promise<z.infer<typeof player>> {
    const parsed = player.safeParse(await call(channel, { method: 'GET', path: '/v2/user' }));
    if (!parsed.success) throw unreadable('the player');
    return parsed.data;
  }

  async function upload(input: PublishInput, fields: Record<string, string>): Promise<string> {
    const [image] = input.media;
    if (image === undefined) {
      throw new PlatformError({ kind: 'permanent', provider, message: 'a shot needs an image' });
    }
    const answer = accepted.safeParse(await call(input.channel, {
      method: 'POST',
      path: '/v2/shots',
      multipart: { fields, fileField: 'image', file: image },
      withStatus: true,
      readHeaders: ['location'],
      // About a megabyte a second on top of the usual wait.
      timeoutMs: options.timeoutMs + Math.ceil(image.size / 1_000),
    }));
    const id = answer.success ? /\/shots\/(\d+)\/?$/.exec(answer.data.headers.location ?? '')?.[1] : undefined;
    if (id === undefined) {
      // Dribbble took the upload: sending it again could make a second shot.
      const message = 'Dribbble accepted the shot but named no address SPS could read';
      throw new PlatformError({ kind: 'unconfirmed', provider, message });
    }
    return id;
  }

  async function publish(input: PublishInput): Promise<PublishResult> {
    const settings = dribbbleSettings.parse(input.settings);
    if (input.media.length !== 1 || input.media[0]?.kind !== 'image') {
      const message = 'a Dribbble shot takes exactly one image';
      throw new PlatformError({ kind: 'permanent', provider, message });
    }
    const released = (id: string): PublishResult => ({ releaseId: id, releaseURL: shotUrl(id) });
    const found = await earlierShot(input.checkpoint, settings.title, (query) => (
      call(input.channel, { method: 'GET', path: `/v2/user/shots?${new URLSearchParams(query).toString()}` })
    ));
    if (found !== null) return released(found);

    const fields: Record<string, string> = {
      title: settings.title,
      ...(input.content === '' ? {} : { description: input.content }),
      ...(settings.tags === undefined || settings.tags.length === 0 ? {} : { tags: settings.tags.join(',') }),
      ...(settings.team_id === undefined ? {} : { team_id: String(settings.team_id) }),
      ...(settings.low_profile === undefined ? {} : { low_profile: String(settings.low_profile) }),
    };
    await shotAttempt(input.checkpoint);
    return released(await upload(input, fields));
  }

  return {
    provider,
    publish,

    comment() {
      const message = 'Dribbble has no comments or threads through its API: send one part only';
      return Promise.reject(new PlatformError({ kind: 'permanent', provider, message }));
    },

    async recentContent(channel) {
      const parsed = shotsAnswer.safeParse(await call(channel, { method: 'GET', path: '/v2/user/shots?per_page=30' }));
      if (!parsed.success) throw unreadable('the player\'s shots');
      return parsed.data.map((shot) => ({ id: String(shot.id), url: shot.html_url ?? shotUrl(String(shot.id)) }));
    },

    /** DELETE /v2/shots/:id (upload scope): the player's shot, for good; Dribbble's 404 means it is gone. */
    async remove(channel, { releaseId }) {
      if (!/^\d+$/.test(releaseId)) {
        throw new PlatformError({ kind: 'permanent', provider, message: `${releaseId} is not a Dribbble shot id` });
      }
      await removedEvenIfGone(() => call(channel, { method: 'DELETE', path: `/v2/shots/${releaseId}` }));
    },

    tools: {
      async teams(channel) {
        return (await me(channel)).teams.map((team) => ({
          id: team.id,
          name: team.name,
          login: team.login ?? null,
          avatarUrl: team.avatar_url ?? null,
          url: team.html_url ?? null,
        }));
      },
    },

    analytics: {
      async account(channel) {
        const { followers_count: followers } = await me(channel);
        return followers === undefined ? [] : [{ label: 'Followers', value: followers }];
      },
      // The v2 shot carries no view, like or comment counts: a shot has nothing to read.
      post: () => Promise.resolve([]),
    },
  };
}
