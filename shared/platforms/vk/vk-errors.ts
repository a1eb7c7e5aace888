import { z } from 'zod';
import { PlatformError, type PlatformErrorKind } from '../kit/platform-error.ts';
import { unreadableAnswer } from '../kit/unreadable-answer.ts';

const provider = 'vk';

/** VK's refusal, sent with HTTP 200: `{error: {error_code, error_msg, request_params}}`. */
export const vkErrorBody = z.object({
  error: z.object({ error_code: z.number().int(), error_msg: z.string() }).loose(),
});

export type VkErrorBody = z.infer<typeof vkErrorBody>['error'];

/**
 * How long a throttled call waits before the job tries again. VK names no reset time in its
 * answers, so these follow what each code means (open-and-community.md 5.5 and 5.7): error 6 is
 * the per-second cap (3 calls a second with a user token), gone within a second; error 9, flood
 * control on one kind of action (posting or commenting too often), lasts minutes; error 29 is a
 * method's quota, counted per day.
 */
export const vkThrottleDelayMs: Readonly<Record<number, number>> = {
  6: 1_000,
  9: 60_000,
  29: 60 * 60_000,
};

/**
 * Error codes by what SPS does about them (VKCOM/vk-api-schema errors.json):
 * 5, user authorization failed: the hour-long VK ID token expired or was revoked, so refresh it
 * (the engine flags the channel when the refresh fails too); 27/28, the community or app key
 * is refused, and 18/3610, the user was deleted or deactivated: reconnect. 1 (unknown) and 10
 * (internal) are VK's own trouble: retry. Everything else is about this post (100 a bad
 * parameter, 15/203 access to the wall or community denied, 214 posting denied, 222 links
 * forbidden, 14 captcha, 17 validation) and would fail the same way again.
 */
function kindOf(code: number): PlatformErrorKind {
  if (code === 5) return 'refresh_token';
  if (code === 27 || code === 28 || code === 18 || code === 3610) return 'disconnected';
  if (code === 1 || code === 10 || vkThrottleDelayMs[code] !== undefined) return 'retryable';
  return 'permanent';
}

/** A definite answer from VK that it did not do what was asked: nothing was made by the call. */
export class VkRefusal extends PlatformError {
  readonly code: number;

  constructor(error: VkErrorBody, method: string) {
    super({
      kind: kindOf(error.error_code),
      provider,
      message: `VK ${method}: ${error.error_msg} (error ${String(error.error_code)})`,
      retryAfterMs: vkThrottleDelayMs[error.error_code] ?? null,
    });
    this.name = 'VkRefusal';
    this.code = error.error_code;
  }

  /**
   * VK refusing a `guid` it has already seen. VK documents the guid's purpose but not this
   * answer's form; a bad-parameter refusal that says so is read as one (vk-send-once.ts).
   */
  get saysAlreadyPublished(): boolean {
    return this.code === 100 && /already/i.test(this.message);
  }
}

export function unreadable(what: string): PlatformError {
  return unreadableAnswer(provider, `VK answered with ${what}`);
}
