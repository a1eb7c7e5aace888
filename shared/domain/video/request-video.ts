import { Types } from 'mongoose';
import type { Database } from '../../db/database.ts';
import { DomainError } from '../../errors.ts';
import { estimatedSeconds, maxSceneChars, splitIntoScenes } from '../../video/scenes.ts';
import type { VideoOutput } from '../../video/slides-command.ts';
import type { VideoCatalog, VideoRequest } from '../../video/video-catalog.ts';
import type { StoredMedia } from '../media/media-view.ts';
import { findSceneImages } from './scene-images.ts';

export interface VideoRequestDeps {
  db: Database;
  catalog: VideoCatalog;
}

export interface VideoRequestInput {
  type: string;
  output: VideoOutput;
  customParams?: Record<string, unknown>;
}

const tooLong = (path: string, message: string) =>
  new DomainError('validation_failed', `${path}: ${message}`, [{ path, message }]);

/** What a slideshow's text makes must fit the bounds: scenes, images for them, and its length. */
async function checkSlides(
  deps: VideoRequestDeps,
  organizationId: Types.ObjectId,
  request: VideoRequest,
): Promise<void> {
  if (request.type !== 'slides') return;
  const { limits } = deps.catalog;
  const scenes = splitIntoScenes(request.params.text);
  if (scenes.length > limits.maxScenes) {
    const scenesMade = `makes ${scenes.length} scenes (one per paragraph or ${maxSceneChars} characters)`;
    throw tooLong('customParams.text', `${scenesMade}; at most ${limits.maxScenes}`);
  }
  const seconds = Math.round(estimatedSeconds(scenes));
  if (seconds > limits.maxSeconds) {
    const message = `takes about ${seconds} s to narrate; videos last at most ${limits.maxSeconds} s`;
    throw tooLong('customParams.text', message);
  }
  if (request.params.images.length > scenes.length) {
    const message = `${request.params.images.length} images for ${scenes.length} scenes: one image per scene at most`;
    throw tooLong('customParams.images', message);
  }
  await findSceneImages(deps.db, organizationId, request.params.images);
}

/**
 * Checks a generation request as far as it can be checked before any work (type, provider,
 * parameters, bounds, the images' owner) and records the pending media the video worker fills.
 */
export async function recordVideoRequest(
  deps: VideoRequestDeps,
  organizationId: string,
  input: VideoRequestInput,
): Promise<StoredMedia> {
  const request = deps.catalog.parse(input.type, input.customParams);
  const owner = new Types.ObjectId(organizationId);
  await checkSlides(deps, owner, request);
  const media = await deps.db.media.create({
    organizationId: owner,
    name: `${request.type}-${input.output}.mp4`,
    originalName: null,
    mimeType: 'video/mp4',
    status: 'pending',
    generation: { videoType: request.type, output: input.output, params: request.params },
    progress: { stage: 'queued', percent: 0 },
  });
  return media.toObject();
}
