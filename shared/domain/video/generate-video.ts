import { createReadStream } from 'node:fs';
import { access, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Logger } from '../../logging/logger.ts';
import { probeMedia } from '../../media/media-probe.ts';
import { DomainError } from '../../errors.ts';
import type { AiProviderSettings } from '../../video/ai-provider-client.ts';
import { captionStyle } from '../../video/caption-styles.ts';
import { renderSlides } from '../../video/render-slides.ts';
import { sceneSeconds, wrapCaption } from '../../video/scenes.ts';
import { captionLineChars, frameSizes, type SceneFiles, type VideoOutput } from '../../video/slides-command.ts';
import type { VideoCatalog, VideoRequest } from '../../video/video-catalog.ts';
import { notify } from '../notifications/notifications.ts';
import type { StoredMedia } from '../media/media-view.ts';
import { processMedia, type MediaProcessingDeps } from '../media/process-media.ts';
import { mediaView } from '../media/media-view.ts';
import { streamIntoStorage } from '../media/store-media.ts';
import { asGenerationFailure, GenerationFailure } from './generation-failure.ts';
import { GenerationProgress } from './generation-progress.ts';
import { generationStages, prepareScenes, type PreparedScenes } from './prepare-scenes.ts';

/** How the video worker makes videos (VIDEO_*, ESPEAK_PATH, AI_* settings). */
export interface VideoGenerationSettings {
  catalog: VideoCatalog;
  ai: AiProviderSettings | null;
  espeak: string;
  fontFile: string;
  /** Time limit of each ffmpeg and espeak-ng run (VIDEO_FFMPEG_TIMEOUT_MS). */
  toolTimeoutMs: number;
}

export interface VideoGenerationDeps extends MediaProcessingDeps {
  video: VideoGenerationSettings;
}

type GeneratedMedia = StoredMedia & { generation: NonNullable<StoredMedia['generation']> };

async function fontPresent(fontFile: string): Promise<void> {
  try {
    await access(fontFile);
  } catch (error) {
    const message = `this server cannot make videos: the caption font ${fontFile} is missing `
      + '(install fonts-dejavu-core)';
    throw new GenerationFailure('video_generation_unavailable', message, { cause: error });
  }
}

/** The request as the worker's own catalog reads it: a worker set up unlike its api fails the video, not the queue. */
function readRequest(catalog: VideoCatalog, generation: GeneratedMedia['generation']): VideoRequest {
  try {
    return catalog.parse(generation.videoType, generation.params);
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    throw new GenerationFailure('video_generation_failed', error.message, { cause: error });
  }
}

/** Narrates each scene in turn and writes its caption, wrapped for the frame. */
async function sceneFiles(
  deps: VideoGenerationDeps,
  prepared: PreparedScenes,
  output: VideoOutput,
  style: string,
  dir: string,
  progress: GenerationProgress,
): Promise<SceneFiles[]> {
  const lineChars = captionLineChars(frameSizes[output], captionStyle(style));
  const files: SceneFiles[] = [];
  for (const [index, scene] of prepared.scenes.entries()) {
    const narrationFile = await prepared.narrate(scene.text, path.join(dir, `narration-${index}`));
    const narration = await probeMedia(narrationFile, { timeoutMs: deps.mediaToolTimeoutMs, tools: deps.mediaTools });
    const captionFile = path.join(dir, `caption-${index}.txt`);
    await writeFile(captionFile, wrapCaption(scene.text, lineChars).join('\n'), 'utf8');
    const seconds = sceneSeconds(narration.durationSeconds ?? 0);
    files.push({ seconds, captionFile, imageFile: scene.imageFile, narrationFile });
    progress.report('narration', (index + 1) / prepared.scenes.length);
  }
  return files;
}

/** Makes the MP4 in a work folder of its own, stores it, and has it inspected like any upload. */
async function makeVideo(
  deps: VideoGenerationDeps,
  media: GeneratedMedia,
  progress: GenerationProgress,
): Promise<StoredMedia | null> {
  const request = readRequest(deps.video.catalog, media.generation);
  const output = media.generation.output === 'horizontal' ? 'horizontal' : 'vertical';
  await fontPresent(deps.video.fontFile);
  const dir = await mkdtemp(path.join(tmpdir(), 'sps-video-'));
  try {
    const prepared = await prepareScenes({
      db: deps.db, storage: deps.storage, limits: deps.video.catalog.limits, ai: deps.video.ai,
      espeak: deps.video.espeak, toolTimeoutMs: deps.video.toolTimeoutMs,
    }, request, media.organizationId, dir, progress);
    const scenes = await sceneFiles(deps, prepared, output, request.params.style, dir, progress);
    const outputFile = path.join(dir, 'video.mp4');
    progress.report('render', 0);
    await renderSlides({
      scenes, frame: frameSizes[output], style: captionStyle(request.params.style), fontFile: deps.video.fontFile,
      maxSeconds: deps.video.catalog.limits.maxSeconds, filterGraphFile: path.join(dir, 'graph.txt'), outputFile,
    }, {
      tools: deps.mediaTools,
      timeoutMs: deps.video.toolTimeoutMs,
      onProgress: (done) => { progress.report('render', done); },
    });
    progress.report('inspect', 0);
    const stored = await streamIntoStorage(deps.storage, createReadStream(outputFile), deps.limits);
    const name = stored.key.split('/').at(-1) ?? stored.key;
    // No progress write may overlap the next ones: FerretDB rewrites the whole document on update,
    // so two at once can lose one of them (the stored file's key, here).
    await progress.settled();
    try {
      await deps.db.media.updateOne({ _id: media._id }, {
        $set: { storageKey: stored.key, path: stored.url, mimeType: stored.type.mimeType, size: stored.size, name },
      });
    } catch (error) {
      // Not recorded, the file would belong to nothing: remove it before the error goes on.
      await deps.storage.delete(stored.key);
      throw error;
    }
    const settled = await processMedia(deps, media._id.toString(), 'inspect');
    // Besides media.ready (processMedia's), integrators waiting for this generation hear video.ready.
    if (settled?.status === 'ready') {
      await deps.webhooks.emit(settled.organizationId.toString(), 'video.ready', mediaView(settled));
    }
    return settled;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Ends a generation that cannot succeed: the media failed with the reason, and the organization told. */
export async function failGeneration(
  deps: VideoGenerationDeps,
  media: StoredMedia,
  failure: GenerationFailure,
): Promise<StoredMedia | null> {
  if (media.storageKey !== null && media.storageKey !== undefined) await deps.storage.delete(media.storageKey);
  const failed = await deps.db.media.findOneAndUpdate(
    { _id: media._id, status: 'pending' },
    { $set: { status: 'failed', error: failure.message, errorReason: failure.reason, storageKey: null, path: null } },
    { returnDocument: 'after' },
  ).lean();
  if (failed !== null) {
    const content = `Video generation failed: ${failure.message}`;
    await notify(deps.db, media.organizationId.toString(), { content, link: null });
  }
  return failed;
}

/**
 * The video worker's job: make the pending media's video as its `generation` asks, then inspect
 * it (ffprobe, poster frame) so it becomes a ready media like an upload. A failure of the
 * provider or of the tools fails the media with the reason and tells the organization; anything
 * else is thrown for the caller.
 */
export async function generateVideo(
  deps: VideoGenerationDeps,
  mediaId: string,
  log: Logger,
): Promise<StoredMedia | null> {
  const found = await deps.db.media.findById(mediaId).lean();
  if (found?.status !== 'pending' || found.generation === null || found.generation === undefined) return found;
  const media: GeneratedMedia = { ...found, generation: found.generation };
  const stages = generationStages(media.generation.videoType, deps.video.ai);
  const progress = new GenerationProgress(deps.db, media._id, log, stages);
  try {
    return await makeVideo(deps, media, progress);
  } catch (error) {
    await progress.settled();
    const failure = asGenerationFailure(error);
    if (!(failure instanceof GenerationFailure)) throw error;
    const current = (await deps.db.media.findById(media._id).lean()) ?? media;
    return failGeneration(deps, current, failure);
  }
}
