import { randomInt } from 'node:crypto';
import { imageFacts, type ImageFacts } from '../kit/image-facts.ts';
import { jsonBody, type SimulatedAnswer, type SimulatedRequest } from '../kit/simulator-server.ts';
import { invalidParameters, invalidRequest, pinterestError } from './pinterest-answers.ts';
import type { PinterestMediaStore } from './pinterest-media.ts';

/**
 * Pins as the simulator keeps them (design-blogging-business.md 1.2 and 1.3): `POST /v5/pins`
 * with a JSON body checked as the spec's `PinCreate` (board_id required and the user's, text
 * limits, a media_source of a known type), images sent inline as base64 and judged by their own
 * bytes (PNG or JPEG only, carousels of 2 to 5 images of one size), videos by a processed media
 * id with a cover. The simulator takes no `image_url` sources: SPS sends the bytes.
 */

export interface SimulatedBoard {
  id: string;
  name: string;
  privacy: 'PUBLIC' | 'PROTECTED' | 'SECRET';
  description?: string;
  sections?: { id: string; name: string }[];
}

export interface SimulatedPin {
  id: string;
  owner: string;
  boardId: string;
  boardSectionId: string | null;
  title: string | null;
  description: string | null;
  link: string | null;
  altText: string | null;
  dominantColor: string | null;
  createdAt: string;
  images: (ImageFacts & { bytes: Buffer })[];
  video: { mediaId: string; cover: Record<string, unknown> } | null;
  /** What the analytics routes report for it; tests set them. */
  metrics: Record<string, number>;
}

type Fields = Record<string, unknown>;

const textLimits: Readonly<Record<string, number>> = { title: 100, description: 800, link: 2048, alt_text: 500 };

function optionalText(body: Fields, name: string): string | null | SimulatedAnswer {
  const value = body[name];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') return invalidParameters;
  const limit = textLimits[name];
  if (limit !== undefined && Array.from(value).length > limit) {
    return invalidRequest(`Invalid request: ${name} is longer than ${String(limit)} characters.`);
  }
  return value;
}

/** An answer has a numeric status; a media record's status is a word. */
const isAnswer = (value: unknown): value is SimulatedAnswer =>
  typeof value === 'object' && value !== null && 'status' in value && typeof value.status === 'number';

/** One inline image: its declared type must be PNG or JPEG and match what the bytes are. */
function inlineImage(item: unknown): (ImageFacts & { bytes: Buffer }) | SimulatedAnswer {
  if (typeof item !== 'object' || item === null) return invalidParameters;
  const { content_type: contentType, data } = item as Fields;
  if (contentType !== 'image/jpeg' && contentType !== 'image/png') {
    return invalidRequest('Invalid request: content_type must be image/jpeg or image/png.');
  }
  if (typeof data !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(data) || data.length % 4 !== 0) {
    return invalidRequest('Invalid request: data is not base64.');
  }
  const bytes = Buffer.from(data, 'base64');
  const facts = imageFacts(bytes);
  if (facts?.mimeType !== contentType) return invalidRequest('Invalid request: the image could not be read.');
  return { ...facts, bytes };
}

export class PinterestPins {
  readonly items: SimulatedPin[] = [];
  readonly #media: PinterestMediaStore;

  constructor(media: PinterestMediaStore) {
    this.#media = media;
  }

  #images(source: Fields): SimulatedPin['images'] | SimulatedAnswer {
    if (source.source_type === 'image_base64') {
      const image = inlineImage(source);
      return isAnswer(image) ? image : [image];
    }
    const items = source.items;
    if (!Array.isArray(items) || items.length < 2 || items.length > 5) {
      return invalidRequest('Invalid request: a carousel takes 2 to 5 images.');
    }
    const images: SimulatedPin['images'] = [];
    for (const item of items) {
      const image = inlineImage(item);
      if (isAnswer(image)) return image;
      images.push(image);
    }
    const sizes = new Set(images.map((image) => `${String(image.width)}x${String(image.height)}`));
    if (sizes.size > 1) {
      return invalidRequest('Invalid request: all images of a carousel must have the same dimensions.');
    }
    return images;
  }

  #video(source: Fields, owner: string): SimulatedPin['video'] | SimulatedAnswer {
    const media = this.#media.forPin(source.media_id, owner);
    if (isAnswer(media)) return media;
    const cover = Object.fromEntries(Object.entries(source).filter(([name]) => name.startsWith('cover_image_')));
    const frame = cover.cover_image_key_frame_time;
    // The spec types the key frame as an integer, minimum 0: a fraction of a second is refused.
    if (frame !== undefined && !(Number.isInteger(frame) && Number(frame) >= 0)) {
      const message = 'Invalid request: media_source.cover_image_key_frame_time must be an integer of 0 or more.';
      return invalidRequest(message);
    }
    const framed = frame !== undefined;
    const pictured = typeof cover.cover_image_url === 'string'
      || (typeof cover.cover_image_content_type === 'string' && typeof cover.cover_image_data === 'string');
    if (!framed && !pictured) {
      return invalidRequest('Invalid request: cover_image_url or cover_image_content_type is required for a video.');
    }
    return { mediaId: media.id, cover };
  }

  /** `POST /v5/pins` for `owner`, whose boards are `boards`. */
  create(request: SimulatedRequest, owner: string, boards: readonly SimulatedBoard[]): SimulatedAnswer {
    if (!(request.headers['content-type'] ?? '').startsWith('application/json')) return invalidParameters;
    const body = jsonBody(request);
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return invalidParameters;
    const fields = body as Fields;
    const board = boards.find((item) => item.id === fields.board_id);
    if (board === undefined) return pinterestError(404, 40, 'Board not found.');
    const sectionId = fields.board_section_id;
    if (sectionId !== undefined && !(board.sections ?? []).some((section) => section.id === sectionId)) {
      return pinterestError(404, 41, 'Board section not found.');
    }
    const names = ['title', 'description', 'link', 'alt_text', 'dominant_color'];
    const texts = names.map((name) => optionalText(fields, name));
    const refused = texts.find(isAnswer);
    if (refused !== undefined) return refused;
    const [title, description, link, altText, dominantColor] = texts as (string | null)[];
    if (link !== null && link !== undefined && !/^https?:\/\//.test(link)) {
      return invalidRequest('Invalid request: link is not a URL.');
    }

    const source = fields.media_source;
    if (typeof source !== 'object' || source === null) return invalidParameters;
    const kind = (source as Fields).source_type;
    let images: SimulatedPin['images'] = [];
    let video: SimulatedPin['video'] = null;
    if (kind === 'image_base64' || kind === 'multiple_image_base64') {
      const read = this.#images(source as Fields);
      if (isAnswer(read)) return read;
      images = read;
    } else if (kind === 'video_id') {
      const read = this.#video(source as Fields, owner);
      if (isAnswer(read)) return read;
      video = read;
    } else {
      return invalidParameters;
    }
    const pin: SimulatedPin = {
      id: String(randomInt(100_000_000_000, 999_999_999_999)),
      owner,
      boardId: board.id,
      boardSectionId: typeof sectionId === 'string' ? sectionId : null,
      title: title ?? null,
      description: description ?? null,
      link: link ?? null,
      altText: altText ?? null,
      dominantColor: dominantColor ?? null,
      createdAt: new Date().toISOString(),
      images,
      video,
      metrics: {},
    };
    this.items.push(pin);
    return { status: 201, body: this.shown(pin) };
  }

  /** A pin as the API shows it. */
  shown(pin: SimulatedPin): Record<string, unknown> {
    const creative = pin.video !== null ? 'VIDEO' : pin.images.length > 1 ? 'CAROUSEL' : 'REGULAR';
    return {
      id: pin.id,
      created_at: pin.createdAt,
      board_id: pin.boardId,
      board_section_id: pin.boardSectionId,
      title: pin.title,
      description: pin.description,
      link: pin.link,
      alt_text: pin.altText,
      dominant_color: pin.dominantColor,
      creative_type: creative,
      is_owner: true,
    };
  }

  /** `GET /v5/boards/{id}/pins`: newest first, paged by bookmark. */
  boardPins(request: SimulatedRequest, board: SimulatedBoard): SimulatedAnswer {
    const size = Number(request.query.get('page_size') ?? '25');
    if (!Number.isInteger(size) || size < 1 || size > 250) return invalidParameters;
    const start = Number(request.query.get('bookmark') ?? '0');
    const pins = this.items.filter((pin) => pin.boardId === board.id).reverse();
    const items = pins.slice(start, start + size).map((pin) => this.shown(pin));
    return { status: 200, body: { items, bookmark: start + size < pins.length ? String(start + size) : null } };
  }
}
