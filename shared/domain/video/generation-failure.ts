import { MediaToolFailure, MediaToolMissing, MediaToolTimeout } from '../../media/media-tool.ts';
import { AiProviderFailure } from '../../video/ai-provider-client.ts';
import { DomainError } from '../../errors.ts';

/**
 * Why a video could not be made, as the media records it: `reason` is machine-readable (its part
 * before a colon is the error code a request answers with), `message` is for people.
 */
export class GenerationFailure extends Error {
  readonly reason: string;
  constructor(reason: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'GenerationFailure';
    this.reason = reason;
  }
}

/**
 * The failures that belong to the video rather than to a passing fault: the provider's refusal
 * or silence, a tool that failed, ran out of time or is missing, an image no longer in the
 * library. Retrying would fail the same way (or cost the provider again), so they end the job.
 * Anything else is returned as it is, for the caller to treat as unexpected.
 */
export function asGenerationFailure(error: unknown): unknown {
  if (error instanceof GenerationFailure) return error;
  if (error instanceof AiProviderFailure) {
    const reason = error.timedOut ? 'provider_failed:timeout' : 'provider_failed';
    return new GenerationFailure(reason, error.message, { cause: error });
  }
  if (error instanceof MediaToolTimeout) {
    const seconds = +(error.timeoutMs / 1000).toFixed(1);
    const message = `${error.tool} took longer than the ${seconds} s allowed to make the video`;
    return new GenerationFailure('video_generation_failed:timeout', message, { cause: error });
  }
  if (error instanceof MediaToolMissing) {
    const message = `this server cannot make videos: ${error.message}`;
    return new GenerationFailure('video_generation_unavailable', message, { cause: error });
  }
  if (error instanceof MediaToolFailure) {
    return new GenerationFailure('video_generation_failed', error.message, { cause: error });
  }
  if (error instanceof DomainError && error.code === 'unknown_media') {
    const message = `an image of the video is gone: ${error.message}`;
    return new GenerationFailure('video_generation_failed', message, { cause: error });
  }
  return error;
}
