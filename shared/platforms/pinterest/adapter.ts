import { z } from 'zod';
import type {
  AdapterOptions, ChannelCredentials, PlatformAdapter, PublishInput, PublishResult,
} from '../kit/platform-adapter.ts';
import type { PlatformApp } from '../kit/platform-connect.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { parseInput } from '../kit/parse-input.ts';
import { readPinterestCredential } from './credential.ts';
import { pinterestSettings } from './definition.ts';
import { pinImageBody } from './pin-image-body.ts';
import { createPin, earlierPin, pinsPage, type SentPin } from './pin-once.ts';
import { defaultVideoPolling, processedVideo, type VideoPolling } from './pin-video.ts';
import { pinterestAnalytics } from './pinterest-analytics.ts';
import { pinterestApi, provider, type PinterestApi } from './pinterest-api.ts';
import { pinterestTools } from './pinterest-tools.ts';
import { removedEvenIfGone } from '../kit/platform-removal.ts';

export const pinUrl = (id: string): string => `https://www.pinterest.com/pin/${id}/`;

/** The user's token and the board a channel pins to (a channel is one board, picked at connect). */
function boardApi(
  channel: ChannelCredentials,
  app: Pick<PlatformApp, 'apiUrl'>,
  timeoutMs: number,
): { api: PinterestApi; boardId: string } {
  const credential = readPinterestCredential(channel.accessToken);
  return { api: pinterestApi(app.apiUrl, credential.accessToken, timeoutMs), boardId: credential.boardId };
}

/** A video pin's `media_source`: the processed video and its cover, as the post's settings give it. */
function videoSource(mediaId: string, settings: z.output<typeof pinterestSettings>): Record<string, unknown> {
  const cover = settings.cover_image_url === undefined
    ? { cover_image_key_frame_time: settings.cover_image_key_frame_time ?? 0 }
    : { cover_image_url: settings.cover_image_url };
  return { source_type: 'video_id', media_id: mediaId, ...cover };
}

/**
 * Publishes pins through the Pinterest API v5 (design-blogging-business.md, section 1) on the
 * channel's board, or the board `board_id` names: the post's text is the pin's description,
 * title, link, alt text, section and colour come from its settings. One image makes an image pin,
 * 2 to 5 a carousel, both sent inline as base64 (pin-image-body.ts); a video is registered,
 * uploaded and waited for (pin-video.ts), then pinned by its media id with a cover. Pinterest has
 * no comments through its API, so a later part is refused.
 *
 * Exactly once (pin-once.ts): Pinterest takes no idempotency key on `POST /v5/pins`. The part's
 * checkpoint is marked before the first create; an attempt that finds the mark (the worker died,
 * or the answer was lost, after Pinterest may have made the pin) first reads the board's newest
 * pins and takes one with the part's title, description and link made since the mark, and only
 * when there is none creates the pin again. The video's media id is checkpointed once
 * registered and again once uploaded, so a retry neither uploads it twice nor pins another.
 */
export function createPinterestAdapter(
  options: AdapterOptions,
  app: Pick<PlatformApp, 'apiUrl'>,
  polling: VideoPolling = defaultVideoPolling,
): PlatformAdapter {
  async function publish(input: PublishInput): Promise<PublishResult> {
    const settings = parseInput(provider, 'Pinterest settings', pinterestSettings, input.settings);
    const { api, boardId: channelBoard } = boardApi(input.channel, app, options.timeoutMs);
    if (input.media.length === 0) {
      throw new PlatformError({ kind: 'permanent', provider, message: 'a pin needs an image or a video' });
    }
    const sent: SentPin = {
      boardId: settings.board_id ?? channelBoard,
      title: settings.title ?? '',
      description: input.content,
      link: settings.link ?? '',
    };
    const released = (id: string): PublishResult => ({ releaseId: id, releaseURL: pinUrl(id) });
    const found = await earlierPin(api, input.checkpoint, sent);
    if (found !== null) return released(found.id);

    const altText = settings.alt_text ?? input.media.find((item) => item.alt !== null && item.alt !== '')?.alt;
    const fields: Record<string, unknown> = {
      board_id: sent.boardId,
      description: input.content,
      ...(settings.board_section_id === undefined ? {} : { board_section_id: settings.board_section_id }),
      ...(settings.title === undefined ? {} : { title: settings.title }),
      ...(settings.link === undefined ? {} : { link: settings.link }),
      ...(altText === undefined || altText === null ? {} : { alt_text: altText }),
      ...(settings.dominant_color === undefined ? {} : { dominant_color: settings.dominant_color }),
    };
    const [video] = input.media.filter((item) => item.kind === 'video');
    const timing = { timeoutMs: options.timeoutMs, polling };
    const body = video === undefined
      ? null
      : { ...fields, media_source: videoSource(await processedVideo(api, video, input.checkpoint, timing), settings) };
    // Base64 is a third larger than the files: about a megabyte a second on top of the usual wait.
    const timeoutMs = options.timeoutMs + Math.ceil(input.media.reduce((sum, item) => sum + item.size, 0) / 750);
    const pin = await createPin(input.checkpoint, () => api(
      body === null
        ? { method: 'POST', path: '/v5/pins', jsonStream: pinImageBody(fields, input.media), timeoutMs }
        : { method: 'POST', path: '/v5/pins', json: body },
      // createPin reads the answer: one it cannot read is unconfirmed, not a refusal.
      z.unknown(),
      'a pin',
    ));
    return released(pin.id);
  }

  return {
    provider,
    publish,

    comment() {
      const message = 'Pinterest has no comments or threads through its API: send one part only';
      return Promise.reject(new PlatformError({ kind: 'permanent', provider, message }));
    },

    async recentContent(channel) {
      const { api, boardId } = boardApi(channel, app, options.timeoutMs);
      const path = `/v5/boards/${encodeURIComponent(boardId)}/pins`;
      const page = await api({ method: 'GET', path, query: { page_size: '25' } }, pinsPage, 'the board\'s pins');
      return page.items.map((pin) => ({ id: pin.id, url: pinUrl(pin.id) }));
    },

    /** DELETE /v5/pins/:pin_id (204): the pin goes for good; Pinterest's 404 means it is gone already. */
    async remove(channel, { releaseId }) {
      const { api } = boardApi(channel, app, options.timeoutMs);
      const path = `/v5/pins/${encodeURIComponent(releaseId)}`;
      await removedEvenIfGone(() => api({ method: 'DELETE', path }, z.unknown(), 'the deletion'));
    },

    tools: pinterestTools((channel) => boardApi(channel, app, options.timeoutMs)),
    analytics: pinterestAnalytics((channel) => boardApi(channel, app, options.timeoutMs).api),
  };
}
