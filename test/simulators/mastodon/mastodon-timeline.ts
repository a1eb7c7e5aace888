import { escapeHtml } from '../../../shared/escape-html.ts';
import type { SimulatedMedia, SimulatedStatus } from './mastodon-records.ts';
import { stringField } from './mastodon-http.ts';
import {
  countedLength, imageSizeLimit, judgeUpload, maxMediaPerStatus, maxStatusCharacters, supportedMimeTypes,
  videoSizeLimit, type Refusal,
} from './mastodon-rules.ts';

/** Who posts or uploads: the timeline needs only the id that owns things and the name in URLs. */
export interface Author {
  id: string;
  username: string;
}

/** An upload as read from its form: the file part's full size, the bytes kept of it, and its description. */
export interface Upload {
  size: number;
  chunks: Buffer[];
  description: string | null;
}

const visibilities = new Set(['public', 'unlisted', 'private', 'direct']);

/**
 * What a Mastodon instance holds and shows, apart from how it is reached: statuses and media,
 * what PostStatusService and MediaAttachment refuse, and how statuses, media and the instance
 * look on the wire.
 * In memory only; the simulator routes requests here after their token and rate limits pass.
 */
type PresentAccount = (accountId: string, statusesCount: number) => Record<string, unknown>;

export class MastodonTimeline {
  readonly statuses: SimulatedStatus[] = [];
  readonly media: SimulatedMedia[] = [];
  /** The instance's `max_characters`: 500 as on mastodon.social; many instances allow more. */
  maxCharacters = maxStatusCharacters;
  /** Favourites and boosts per status id, as other users would make them. */
  readonly #reactions = new Map<string, { favourites: number; reblogs: number }>();
  /** Statuses and media draw from one sequence of snowflake-sized ids, so no id names both. */
  #nextId = 110_000_000_000_000_000n;
  /** A function, not a value: the simulator learns its origin only once its server listens. */
  readonly #origin: () => string;

  /** Who posted a status, as the API shows an account inside it. */
  readonly #presentAccount: PresentAccount;

  constructor(origin: () => string, presentAccount: PresentAccount) {
    this.#origin = origin;
    this.#presentAccount = presentAccount;
  }

  react(statusId: string, reactions: { favourites: number; reblogs: number }): void {
    this.#reactions.set(statusId, reactions);
  }

  /** What PostStatusService refuses, in its order: the media first, then the text and its fields. */
  refusalFor(authorId: string, fields: Record<string, unknown>, mediaIds: string[]): Refusal | null {
    if (mediaIds.length > maxMediaPerStatus) {
      return { status: 422, error: `Cannot attach more than ${maxMediaPerStatus} files` };
    }
    const own = this.media.filter((candidate) => candidate.accountId === authorId);
    const attached = mediaIds.map((id) => own.find((candidate) => candidate.id === id));
    if (attached.some((media) => media === undefined)) {
      return { status: 422, error: 'Validation failed: media_ids are not yours or do not exist' };
    }
    if (attached.length > 1 && attached.some((media) => media?.type === 'video')) {
      return { status: 422, error: 'Cannot attach a video to a post that already contains images' };
    }
    if (attached.some((media) => media !== undefined && media.pollsUntilReady > 0)) {
      return { status: 422, error: 'Cannot attach files that have not finished processing. Try again in a moment!' };
    }
    const text = stringField(fields, 'status') ?? '';
    if (text.trim() === '' && mediaIds.length === 0) {
      return { status: 422, error: "Validation failed: Text can't be blank" };
    }
    if (countedLength(stringField(fields, 'spoiler_text') ?? '', text) > this.maxCharacters) {
      return { status: 422, error: `Validation failed: Text character limit of ${this.maxCharacters} exceeded` };
    }
    if (!visibilities.has(stringField(fields, 'visibility') ?? 'public')) {
      return { status: 422, error: 'Validation failed: Visibility is not included in the list' };
    }
    const inReplyTo = stringField(fields, 'in_reply_to_id');
    if (inReplyTo !== null && !this.statuses.some((status) => status.id === inReplyTo)) {
      return { status: 404, error: 'Record not found' };
    }
    return null;
  }

  /** Builds and keeps the status for fields that `refusalFor` let through. */
  addStatus(author: Author, fields: Record<string, unknown>, mediaIds: string[]): SimulatedStatus {
    const id = (this.#nextId++).toString();
    const text = stringField(fields, 'status') ?? '';
    const origin = this.#origin();
    const status: SimulatedStatus = {
      id,
      url: `${origin}/@${author.username}/${id}`,
      uri: `${origin}/users/${author.username}/statuses/${id}`,
      content: `<p>${escapeHtml(text)}</p>`,
      text,
      mediaIds,
      in_reply_to_id: stringField(fields, 'in_reply_to_id'),
      visibility: stringField(fields, 'visibility') ?? 'public',
      spoiler_text: stringField(fields, 'spoiler_text') ?? '',
      sensitive: fields.sensitive === true,
      language: stringField(fields, 'language'),
      created_at: new Date().toISOString(),
      accountId: author.id,
    };
    this.statuses.push(status);
    return status;
  }

  /**
   * What MediaAttachment refuses (an empty file, a type or size it does not take, judged by the
   * bytes), or else the kept media; a video is still "processing" until it has been polled once.
   */
  async addUpload(accountId: string, upload: Upload): Promise<SimulatedMedia | { refused: string }> {
    if (upload.size === 0) return { refused: 'Validation failed: File can\'t be blank' };
    const bytes = Buffer.concat(upload.chunks);
    const judged = await judgeUpload(bytes.subarray(0, 64 * 1024), upload.size);
    if ('refused' in judged) return judged;
    const media: SimulatedMedia = {
      id: (this.#nextId++).toString(),
      accountId,
      type: judged.kind,
      mimeType: judged.mimeType,
      bytes,
      description: upload.description,
      pollsUntilReady: judged.kind === 'video' ? 1 : 0,
    };
    this.media.push(media);
    return media;
  }

  /**
   * The owner's media as a poll finds it, or null: a video that is still processing counts the
   * poll and is not ready yet.
   */
  poll(mediaId: string, ownerId: string): { media: SimulatedMedia; ready: boolean } | null {
    const media = this.media.find((candidate) => candidate.id === mediaId && candidate.accountId === ownerId);
    if (media === undefined) return null;
    if (media.pollsUntilReady <= 0) return { media, ready: true };
    media.pollsUntilReady -= 1;
    return { media, ready: false };
  }

  /** GET /api/v2/instance: the limits SPS reads when a channel connects. */
  /** The instance as /api/v2/instance shows it: every field Mastodon's Instance entity always has. */
  instance(): Record<string, unknown> {
    const origin = this.#origin();
    return {
      domain: new URL(origin).host,
      title: 'Simulated Mastodon',
      version: '4.5.0',
      source_url: 'https://github.com/mastodon/mastodon',
      description: 'A local stand-in for a Mastodon instance.',
      usage: { users: { active_month: 1 } },
      thumbnail: { url: `${origin}/packs/media/images/preview.png` },
      icon: [],
      languages: ['en'],
      registrations: { enabled: false, approval_required: false, message: null },
      contact: { email: 'admin@example.org', account: null },
      rules: [],
      api_versions: { mastodon: 6 },
      configuration: {
        urls: { streaming: origin.replace(/^http/, 'ws') },
        accounts: { max_featured_tags: 10, max_pinned_statuses: 5 },
        statuses: {
          max_characters: this.maxCharacters,
          max_media_attachments: maxMediaPerStatus,
          characters_reserved_per_url: 23,
        },
        // Mastodon's defaults beside the limits the simulator enforces (mastodon-rules.ts).
        media_attachments: {
          supported_mime_types: supportedMimeTypes,
          image_size_limit: imageSizeLimit,
          image_matrix_limit: 33_177_600,
          video_size_limit: videoSizeLimit,
          video_frame_rate_limit: 120,
          video_matrix_limit: 8_294_400,
        },
        polls: { max_options: 4, max_characters_per_option: 50, min_expiration: 300, max_expiration: 2_629_746 },
        translation: { enabled: false },
      },
    };
  }

  /**
   * Takes the author's status off the instance, as RemovalWorker does: answers it as it was, or
   * null when it is not there or is someone else's (Mastodon answers both 404). Replies stay.
   */
  remove(statusId: string, authorId: string): Record<string, unknown> | null {
    const index = this.statuses.findIndex((status) => status.id === statusId && status.accountId === authorId);
    const status = this.statuses[index];
    if (status === undefined) return null;
    const answer = { ...this.present(status), text: status.text };
    this.statuses.splice(index, 1);
    return answer;
  }

  /** A status as the API shows it: without what only the simulator keeps, with counts and attachments. */
  present(status: SimulatedStatus): Record<string, unknown> {
    const { text: _text, accountId: _accountId, mediaIds, ...wire } = status;
    const attachments = mediaIds
      .flatMap((id) => this.media.filter((media) => media.id === id))
      .map((media) => this.presentMedia(media, true));
    const reactions = this.#reactions.get(status.id) ?? { favourites: 0, reblogs: 0 };
    const statusesCount = this.statuses.filter((candidate) => candidate.accountId === status.accountId).length;
    return {
      ...wire,
      account: this.#presentAccount(status.accountId, statusesCount),
      mentions: [],
      tags: [],
      emojis: [],
      replies_count: this.statuses.filter((candidate) => candidate.in_reply_to_id === status.id).length,
      reblogs_count: reactions.reblogs,
      favourites_count: reactions.favourites,
      media_attachments: attachments,
    };
  }

  /** An attachment as the API shows it: no URL until it has finished processing. */
  presentMedia(media: SimulatedMedia, ready: boolean): Record<string, unknown> {
    const url = ready ? `${this.#origin()}/system/media/${media.id}` : null;
    return { id: media.id, type: media.type, url, description: media.description };
  }
}
