import { createWriteStream } from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Types } from 'mongoose';
import type { Database } from '../../db/database.ts';
import type { Storage } from '../../storage/storage.ts';
import { AiProviderClient, type AiProviderSettings } from '../../video/ai-provider-client.ts';
import { writeScript } from '../../video/ai-script.ts';
import { espeakNarrator, type Narrate } from '../../video/espeak-narrator.ts';
import { providerImage } from '../../video/provider-image.ts';
import { providerNarrator } from '../../video/provider-narrator.ts';
import { splitIntoScenes } from '../../video/scenes.ts';
import type { VideoLimits, VideoRequest } from '../../video/video-catalog.ts';
import type { GenerationProgress, GenerationStage } from './generation-progress.ts';
import { findSceneImages } from './scene-images.ts';

/** A scene ready to be narrated and drawn: its text, and the image file behind it if any. */
export interface PreparedScene {
  text: string;
  imageFile: string | null;
}

export interface PreparedScenes {
  scenes: PreparedScene[];
  narrate: Narrate;
}

export interface ScenePreparationDeps {
  db: Database;
  storage: Storage;
  limits: VideoLimits;
  ai: AiProviderSettings | null;
  /** ESPEAK_PATH. */
  espeak: string;
  /** Time limit of each espeak-ng run. */
  toolTimeoutMs: number;
}

/** Each stage's share of a generation's progress, by type; the AI's images take the longest when made. */
export function generationStages(videoType: string, ai: AiProviderSettings | null): [GenerationStage, number][] {
  if (videoType !== 'ai-slides') return [['narration', 15], ['render', 75], ['inspect', 10]];
  const images: [GenerationStage, number][] = ai?.imageModel === null ? [] : [['images', 35]];
  return [['script', 10], ...images, ['narration', 15], ['render', 35], ['inspect', 5]];
}

/** Copies library images into the work folder: ffmpeg reads local files, whatever the storage driver. */
async function copyImages(
  storage: Storage,
  images: readonly { storageKey?: string | null }[],
  dir: string,
): Promise<string[]> {
  const files: string[] = [];
  for (const [index, image] of images.entries()) {
    if (image.storageKey === null || image.storageKey === undefined) {
      throw new Error('a ready image has no stored file');
    }
    const file = path.join(dir, `library-${index}${path.extname(image.storageKey)}`);
    await pipeline(await storage.get(image.storageKey), createWriteStream(file));
    files.push(file);
  }
  return files;
}

/** slides: the text's scenes, the named images shown in order (again from the first when scenes outnumber them). */
async function slideScenes(
  deps: ScenePreparationDeps,
  request: Extract<VideoRequest, { type: 'slides' }>,
  organizationId: Types.ObjectId,
  dir: string,
): Promise<PreparedScenes> {
  const images = await findSceneImages(deps.db, organizationId, request.params.images);
  const files = await copyImages(deps.storage, images, dir);
  const scenes = splitIntoScenes(request.params.text).slice(0, deps.limits.maxScenes).map((text, index) => ({
    text,
    imageFile: files.length === 0 ? null : (files[index % files.length] ?? null),
  }));
  const narrate = espeakNarrator({ command: deps.espeak, voice: request.params.voice, timeoutMs: deps.toolTimeoutMs });
  return { scenes, narrate };
}

/**
 * ai-slides: the provider writes the script, pictures each scene where an image model is set,
 * and narrates where a speech model is (espeak-ng does otherwise).
 */
async function aiScenes(
  deps: ScenePreparationDeps,
  request: Extract<VideoRequest, { type: 'ai-slides' }>,
  ai: AiProviderSettings,
  dir: string,
  progress: GenerationProgress,
): Promise<PreparedScenes> {
  const client = new AiProviderClient(ai);
  progress.report('script', 0);
  const script = await writeScript(client, request.params.prompt, {
    maxScenes: deps.limits.maxScenes, maxTextChars: deps.limits.maxTextChars, maxSeconds: deps.limits.maxSeconds,
  });
  progress.report('script', 1);
  const scenes: PreparedScene[] = [];
  for (const [index, scene] of script.entries()) {
    const imageFile = ai.imageModel === null || scene.imagePrompt === null
      ? null
      : await providerImage(client, ai.imageModel, scene.imagePrompt, path.join(dir, `picture-${index}`));
    scenes.push({ text: scene.text, imageFile });
    progress.report('images', (index + 1) / script.length);
  }
  const narrate = ai.speechModel === null
    ? espeakNarrator({ command: deps.espeak, voice: request.params.voice, timeoutMs: deps.toolTimeoutMs })
    : providerNarrator(client, ai.speechModel, request.params.voice);
  return { scenes, narrate };
}

/** The scenes of the requested video with their images in `dir`, and who narrates them. */
export function prepareScenes(
  deps: ScenePreparationDeps,
  request: VideoRequest,
  organizationId: Types.ObjectId,
  dir: string,
  progress: GenerationProgress,
): Promise<PreparedScenes> {
  if (request.type === 'slides') return slideScenes(deps, request, organizationId, dir);
  // The catalog refuses AI types without a provider; a worker configured apart from its api still must not guess.
  if (deps.ai === null) throw new Error('an ai-slides job reached a worker without an AI provider (AI_API_KEY)');
  return aiScenes(deps, request, deps.ai, dir, progress);
}
