import { imageFacts } from '../kit/image-facts.ts';
import type { SimulatedAnswer, SimulatedRequest } from '../kit/simulator-server.ts';
import { multipartParts } from '../kit/multipart-form.ts';

/**
 * Shots as the simulator keeps them (design-blogging-business.md 2.2 and 2.3): `POST /v2/shots`
 * is a multipart form with a required title and exactly one image, judged by its own bytes (GIF,
 * JPG or PNG, exactly 400x300 or 800x600, at most 8 MB); tags arrive as one comma-separated
 * field (at most 12), team_id must name one of the player's teams, and a player may upload only
 * so many shots a day. Refusals are 422 `{message: "Validation failed.", errors: [...]}`; the
 * facts name that shape and "daily limit", the per-field words are the simulator's stand-ins.
 * An accepted upload answers 202 with no body and the shot's address in Location.
 */

export interface SimulatedShot {
  id: number;
  owner: number;
  title: string;
  description: string | null;
  tags: string[];
  teamId: number | null;
  lowProfile: boolean;
  image: { mimeType: string; width: number | null; height: number | null; bytes: Buffer; fileName: string | null };
  publishedAt: string;
}

export interface ShotAuthor {
  id: number;
  canUpload: boolean;
  teamIds: readonly number[];
}

const acceptedTypes = ['image/gif', 'image/jpeg', 'image/png'];
const acceptedSizes = ['400x300', '800x600'];
const maxImageBytes = 8 * 1024 * 1024;

function invalid(attribute: string, message: string): SimulatedAnswer {
  return { status: 422, body: { message: 'Validation failed.', errors: [{ attribute, message }] } };
}

export class DribbbleShots {
  readonly items: SimulatedShot[] = [];
  /** Shots one player may upload per UTC day. */
  dailyLimit = 50;
  #nextId = 23_000_000;
  readonly #origin: () => string;

  constructor(origin: () => string) {
    this.#origin = origin;
  }

  #uploadedToday(owner: number): number {
    const today = new Date().toISOString().slice(0, 10);
    return this.items.filter((shot) => shot.owner === owner && shot.publishedAt.startsWith(today)).length;
  }

  create(request: SimulatedRequest, author: ShotAuthor): SimulatedAnswer {
    if (!author.canUpload) return { status: 403, body: { message: 'You are not allowed to upload shots.' } };
    const parts = multipartParts(request);
    if (parts === null) return { status: 400, body: { message: 'Problem parsing the request body.' } };
    const field = (name: string) => parts.find((part) => part.name === name && part.fileName === null)?.data
      .toString('utf8');
    const title = field('title')?.trim() ?? '';
    if (title === '') return invalid('title', 'can\'t be blank');
    const files = parts.filter((part) => part.name === 'image' && part.fileName !== null);
    const [file] = files;
    if (file === undefined) return invalid('image', 'can\'t be blank');
    if (files.length > 1) return invalid('image', 'must be a single file');
    const facts = imageFacts(file.data);
    if (facts === null || !acceptedTypes.includes(facts.mimeType)) {
      return invalid('image', 'must be a GIF, JPG or PNG');
    }
    if (!acceptedSizes.includes(`${String(facts.width)}x${String(facts.height)}`)) {
      return invalid('image', 'must be exactly 400x300 or 800x600');
    }
    if (file.data.length > maxImageBytes) return invalid('image', 'is too large (maximum is 8 MB)');
    const tags = (field('tags') ?? '').split(',').map((tag) => tag.trim()).filter((tag) => tag !== '');
    if (tags.length > 12) return invalid('tags', 'has too many tags (maximum is 12)');
    const team = field('team_id');
    const teamId = team === undefined ? null : Number(team);
    if (teamId !== null && !author.teamIds.includes(teamId)) return invalid('team_id', 'is not a team you belong to');
    const lowProfile = field('low_profile');
    if (lowProfile !== undefined && lowProfile !== 'true' && lowProfile !== 'false') {
      return invalid('low_profile', 'must be true or false');
    }
    if (this.#uploadedToday(author.id) >= this.dailyLimit) {
      return invalid('base', 'You have reached your daily limit of shots. Try again tomorrow.');
    }
    this.#nextId += 1;
    const shot: SimulatedShot = {
      id: this.#nextId,
      owner: author.id,
      title,
      description: field('description') ?? null,
      tags,
      teamId,
      lowProfile: lowProfile === 'true',
      image: { ...facts, bytes: file.data, fileName: file.fileName },
      publishedAt: new Date().toISOString(),
    };
    this.items.push(shot);
    return { status: 202, headers: { location: `${this.#origin()}/v2/shots/${String(shot.id)}` } };
  }

  /** A shot as the API shows it. */
  shown(shot: SimulatedShot): Record<string, unknown> {
    const slug = shot.title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
    const extension = shot.image.mimeType.split('/')[1] ?? 'png';
    const image = `https://cdn.dribbble.com/userupload/${String(shot.id)}/file`;
    return {
      id: shot.id,
      title: shot.title,
      description: shot.description === null ? null : `<p>${shot.description}</p>`,
      width: shot.image.width,
      height: shot.image.height,
      // The renditions Dribbble makes of the upload; hidpi only from an 800x600 one (v2/shots).
      images: {
        hidpi: shot.image.width === 800 ? `${image}.${extension}` : null,
        normal: `${image}_normal.${extension}`,
        teaser: `${image}_teaser.${extension}`,
      },
      // A shot the simulator keeps is never animated, and has no attachments or projects: the API takes
      // neither at upload.
      animated: false,
      attachments: [],
      projects: [],
      html_url: `https://dribbble.com/shots/${String(shot.id)}-${slug}`,
      published_at: shot.publishedAt,
      updated_at: shot.publishedAt,
      low_profile: shot.lowProfile,
      tags: shot.tags,
      team: shot.teamId === null ? null : { id: shot.teamId },
    };
  }

  /** `GET /v2/user/shots`: the player's shots, newest first, `per_page` at most 100. */
  ofPlayer(request: SimulatedRequest, owner: number): SimulatedAnswer {
    const perPage = Math.min(100, Number(request.query.get('per_page') ?? '30') || 30);
    const page = Math.max(1, Number(request.query.get('page') ?? '1') || 1);
    const mine = this.items.filter((shot) => shot.owner === owner).reverse();
    const body = mine.slice((page - 1) * perPage, page * perPage).map((shot) => this.shown(shot));
    return { status: 200, body };
  }
}
