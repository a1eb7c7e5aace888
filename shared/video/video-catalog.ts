import { z } from 'zod';
import { DomainError, type ErrorDetail } from '../errors.ts';
import { captionStyleIds, captionStyles, defaultCaptionStyle } from './caption-styles.ts';
import { defaultEspeakVoice, espeakVoices, type VoiceChoice } from './espeak-voices.ts';

/** What every request and every job is held to (VIDEO_* settings). */
export interface VideoLimits {
  maxSeconds: number;
  maxTextChars: number;
  maxScenes: number;
  maxImages: number;
}

/** What the catalog knows of the AI provider: whether there is one, and whose voices narrate. */
export interface VideoProviderFacts {
  configured: boolean;
  /** The provider's voices when it narrates (AI_SPEECH_MODEL set); null when espeak-ng does. */
  voices: readonly string[] | null;
}

export const videoTypeIds = ['slides', 'ai-slides'] as const;
export type VideoTypeId = (typeof videoTypeIds)[number];

const mediaId = z.string().regex(/^[0-9a-fA-F]{24}$/, 'must be the id of a media of your library');
const styleParam = z.enum(captionStyleIds).default(defaultCaptionStyle)
  .describe(`caption style: ${captionStyleIds.join(', ')}`);
const espeakVoiceParam = z.enum(espeakVoices.map((voice) => voice.id) as [string, ...string[]])
  .default(defaultEspeakVoice);

function slidesParams(limits: VideoLimits) {
  return z.strictObject({
    text: z.string().trim().min(1).max(limits.maxTextChars)
      .describe('what the video says and shows: one scene per paragraph (blank lines between them)'),
    images: z.array(mediaId).max(limits.maxImages).default([])
      .describe('images of the library shown behind the scenes, in order'),
    voice: espeakVoiceParam,
    style: styleParam,
  });
}

function aiSlidesParams(limits: VideoLimits, voices: readonly string[] | null) {
  const voice = voices === null || voices.length === 0
    ? espeakVoiceParam
    : z.enum(voices as [string, ...string[]]).default(voices[0] ?? '');
  return z.strictObject({
    prompt: z.string().trim().min(1).max(limits.maxTextChars).describe('what the video is about'),
    voice,
    style: styleParam,
  });
}

export type SlidesParams = z.output<ReturnType<typeof slidesParams>>;
export type AiSlidesParams = z.output<ReturnType<typeof aiSlidesParams>>;

/** A request the catalog accepted: its type and its parameters as the generator reads them. */
export type VideoRequest =
  | { type: 'slides'; params: SlidesParams }
  | { type: 'ai-slides'; params: AiSlidesParams };

/** The helper data `POST /video/function` offers for each type. */
export const videoFunctionNames = ['voices', 'styles'] as const;

const styleChoices = captionStyles.map(({ id, name, description }) => ({ id, name, description }));

function invalidParams(error: z.ZodError): DomainError {
  const details: ErrorDetail[] = error.issues.map((issue) => ({
    path: ['customParams', ...issue.path.map(String)].join('.'),
    message: issue.message,
  }));
  const first = details[0];
  const message = first === undefined ? 'customParams are invalid' : `${first.path}: ${first.message}`;
  return new DomainError('validation_failed', message, details);
}

/**
 * The video types this server makes, what each takes, and the helper data each offers. Built from
 * the configuration, so the api refuses what the worker would refuse, before any job is queued.
 */
export class VideoCatalog {
  readonly limits: VideoLimits;
  readonly provider: VideoProviderFacts;

  constructor(limits: VideoLimits, provider: VideoProviderFacts) {
    this.limits = limits;
    this.provider = provider;
  }

  #type(type: string): VideoTypeId {
    const known = videoTypeIds.find((id) => id === type);
    if (known === undefined) {
      const message = `there is no video type ${JSON.stringify(type)}; the types are ${videoTypeIds.join(', ')}`;
      throw new DomainError('unknown_video_type', message);
    }
    if (known === 'ai-slides' && !this.provider.configured) {
      const message = `${known} videos need an AI provider, and this server has none (AI_API_KEY is not set)`;
      throw new DomainError('provider_not_configured', message);
    }
    return known;
  }

  /** Checks a request's type and parameters; fails with the code and the place of the first problem. */
  parse(type: string, customParams: unknown): VideoRequest {
    const known = this.#type(type);
    const given = customParams ?? {};
    if (known === 'slides') {
      const parsed = slidesParams(this.limits).safeParse(given);
      if (!parsed.success) throw invalidParams(parsed.error);
      return { type: known, params: parsed.data };
    }
    const parsed = aiSlidesParams(this.limits, this.provider.voices).safeParse(given);
    if (!parsed.success) throw invalidParams(parsed.error);
    return { type: known, params: parsed.data };
  }

  /** `POST /video/function`: the voices or the caption styles a type offers. */
  helper(type: string, functionName: string): unknown {
    const known = this.#type(type);
    if (functionName === 'styles') return styleChoices;
    if (functionName === 'voices') {
      const providerVoices = known === 'ai-slides' ? this.provider.voices : null;
      return providerVoices === null
        ? espeakVoices
        : providerVoices.map((id): VoiceChoice => ({ id, name: id }));
    }
    throw new DomainError('validation_failed', `functionName: ${known} offers ${videoFunctionNames.join(', ')}`, [
      { path: 'functionName', message: `must be one of ${videoFunctionNames.join(', ')}` },
    ]);
  }
}
