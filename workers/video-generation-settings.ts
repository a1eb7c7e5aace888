import type { Config } from '../shared/config/config.ts';
import type { VideoGenerationSettings } from '../shared/domain/video/generate-video.ts';
import { aiProviderSettings, videoCatalogFor } from '../shared/video/video-settings.ts';

/** How the video worker makes videos, from VIDEO_*, ESPEAK_PATH and AI_*. */
export function videoGenerationSettings(config: Config): VideoGenerationSettings {
  return {
    catalog: videoCatalogFor(config),
    ai: aiProviderSettings(config),
    espeak: config.ESPEAK_PATH,
    fontFile: config.VIDEO_FONT_FILE,
    toolTimeoutMs: config.VIDEO_FFMPEG_TIMEOUT_MS,
  };
}
