import type { Config } from '../config/config.ts';
import type { AiProviderSettings } from './ai-provider-client.ts';
import { VideoCatalog } from './video-catalog.ts';

/** The AI provider as configured, or null without a key (the AI video types are then refused). */
export function aiProviderSettings(config: Config): AiProviderSettings | null {
  if (config.AI_API_KEY === undefined) return null;
  return {
    baseUrl: config.AI_BASE_URL,
    apiKey: config.AI_API_KEY,
    textModel: config.AI_TEXT_MODEL,
    imageModel: config.AI_IMAGE_MODEL ?? null,
    speechModel: config.AI_SPEECH_MODEL ?? null,
    voices: config.AI_SPEECH_VOICES,
    timeoutMs: config.AI_TIMEOUT_MS,
  };
}

/** The video types as this configuration offers them; the api and the video worker build the same one. */
export function videoCatalogFor(config: Config): VideoCatalog {
  const ai = aiProviderSettings(config);
  return new VideoCatalog(
    {
      maxSeconds: config.VIDEO_MAX_DURATION_SECONDS,
      maxTextChars: config.VIDEO_MAX_TEXT_CHARS,
      maxScenes: config.VIDEO_MAX_SCENES,
      maxImages: config.VIDEO_MAX_IMAGES,
    },
    { configured: ai !== null, voices: ai?.speechModel === null || ai === null ? null : ai.voices },
  );
}
