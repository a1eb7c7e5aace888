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
 * Spread into the one configuration schema (config.ts), so they are read, checked and documented with the rest.
 */
export const videoConfigShape = {
  VIDEO_CONCURRENCY: positiveInt.default(1)
    .describe('Video generations one worker process runs at once: each is an ffmpeg encode that takes a core.'),
  VIDEO_WAIT_MS: positiveInt.default(30_000)
    .describe('How long `POST /generate-video` waits for the video worker before answering 202.'),
  VIDEO_MAX_DURATION_SECONDS: positiveInt.max(600).default(60)
    .describe('The longest video made: a text that would narrate longer is refused up front, and every render is '
      + 'cut at this length.'),
  VIDEO_MAX_TEXT_CHARS: positiveInt.max(20_000).default(1_500)
    .describe('The longest `text` (slides) or `prompt` (AI types) a request may carry, in characters.'),
  VIDEO_MAX_SCENES: positiveInt.max(100).default(12)
    .describe('Scenes one video may have (each a caption, a narration and an image or a plain background); a '
      + 'script the provider writes is cut to it.'),
  VIDEO_MAX_IMAGES: positiveInt.max(100).default(10)
    .describe('Images of the organization\'s library one slides request may name.'),
  VIDEO_FFMPEG_TIMEOUT_MS: positiveInt.default(300_000)
    .describe('Time limit of every ffmpeg and espeak-ng run of a generation; the process is killed and the media '
      + 'fails with reason `video_generation_failed:timeout`.'),
  ESPEAK_PATH: z.string().min(1).default('espeak-ng')
    .describe('The speech engine\'s command (Debian\'s espeak-ng): a name on `PATH` or an absolute path. '
      + '`npm start` installs `espeak-ng` when this is unset and it is missing; a worker without it fails videos '
      + 'with 503 `video_generation_unavailable`.'),
  VIDEO_FONT_FILE: z.string().min(1).default(defaultCaptionFont)
    .describe('The TrueType font captions are drawn with (`npm start` installs `fonts-dejavu-core` when this is '
      + 'unset and the file is missing).'),
  AI_BASE_URL: z.url().default('https://api.openai.com/v1')
    .describe('The OpenAI-compatible provider of the AI video types (`/chat/completions`, `/images/generations` '
      + 'answering `b64_json`, `/audio/speech`). Set the `AI_*` settings on the api and on the video workers '
      + 'alike.'),
  AI_API_KEY: optionalSetting
    .describe('The provider\'s key; without it the AI video types answer 422 `provider_not_configured`.'),
  AI_TEXT_MODEL: z.string().min(1).default('gpt-4o-mini')
    .describe('The model that writes the script (asked for a JSON object).'),
  AI_IMAGE_MODEL: optionalSetting
    .describe('When set, each scene of an AI video gets a picture from this model; otherwise the style\'s plain '
      + 'background.'),
  AI_SPEECH_MODEL: optionalSetting
    .describe('When set, AI videos are narrated by the provider (asked for WAV); otherwise by espeak-ng.'),
  AI_SPEECH_VOICES: z
    .string()
    .default('alloy,echo,fable,onyx,nova,shimmer')
    .transform((list) => list.split(',').map((voice) => voice.trim()).filter(Boolean))
    .describe('The provider\'s voices, comma-separated, offered by `POST /video/function` and accepted as '
      + '`voice`.'),
  AI_TIMEOUT_MS: positiveInt.default(60_000)
    .describe('Time limit of each request to the provider, its answer included.'),
};
