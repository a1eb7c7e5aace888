import { z } from 'zod';

const positiveInt = z.coerce.number().int().positive();

/** Compose passes `${AI_API_KEY:-}` through as an empty value: that means the setting is not given. */
const optionalSetting = z.preprocess(
  (value) => (value === '' ? undefined : value),
  z.string().min(1).optional(),
);

/** Where Debian's fonts-dejavu-core puts the bold sans face the captions are drawn with. */
export const defaultCaptionFont = '/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf';

/**
 * The settings of video generation (`POST /generate-video`): the bounds every request and job is
 * held to, the local tools, and the OpenAI-compatible provider behind the AI video types.
 * Spread into the one configuration schema (config.ts), so they are read and checked with the rest.
 */
export const videoConfigShape = {
  /** Generations one worker process runs at once: each is an ffmpeg encode that takes a core. */
  VIDEO_CONCURRENCY: positiveInt.default(1),
  /** How long POST /generate-video waits for the video worker before answering 202. */
  VIDEO_WAIT_MS: positiveInt.default(30_000),
  /** The longest video made; a longer narration is refused up front and cut at this length. */
  VIDEO_MAX_DURATION_SECONDS: positiveInt.max(600).default(60),
  /** The longest text (slides) or prompt (AI types) a request may carry, in characters. */
  VIDEO_MAX_TEXT_CHARS: positiveInt.max(20_000).default(1_500),
  /** Scenes one video may have: each is a caption, a narration and an image or a plain background. */
  VIDEO_MAX_SCENES: positiveInt.max(100).default(12),
  /** Images of the organization's library one request may name. */
  VIDEO_MAX_IMAGES: positiveInt.max(100).default(10),
  /** Time limit of every ffmpeg and espeak-ng run while generating; the process is killed at it. */
  VIDEO_FFMPEG_TIMEOUT_MS: positiveInt.default(300_000),
  /** The speech engine's command (Debian's espeak-ng): a name on PATH or an absolute path. */
  ESPEAK_PATH: z.string().min(1).default('espeak-ng'),
  /** The TrueType font captions are drawn with. */
  VIDEO_FONT_FILE: z.string().min(1).default(defaultCaptionFont),
  /** An OpenAI-compatible API (chat completions, image generations, audio speech). */
  AI_BASE_URL: z.url().default('https://api.openai.com/v1'),
  /** Without it the AI video types answer 422 `provider_not_configured`. */
  AI_API_KEY: optionalSetting,
  AI_TEXT_MODEL: z.string().min(1).default('gpt-4o-mini'),
  /** When set, each scene of an AI video gets an image made from the script; otherwise a plain background. */
  AI_IMAGE_MODEL: optionalSetting,
  /** When set, AI videos are narrated by the provider; otherwise by espeak-ng. */
  AI_SPEECH_MODEL: optionalSetting,
  /** The provider's voices offered by POST /video/function and accepted as `voice`. */
  AI_SPEECH_VOICES: z
    .string()
    .default('alloy,echo,fable,onyx,nova,shimmer')
    .transform((list) => list.split(',').map((voice) => voice.trim()).filter(Boolean)),
  /** Time limit of each request to the provider. */
  AI_TIMEOUT_MS: positiveInt.default(60_000),
};
