import { z } from 'zod';
import { classifyGraphError } from './meta-graph.ts';
import {
  isGraphThrottling, publishingLimitSubcode, readGraphRefusal, type GraphRefusal,
} from './meta-graph-refusals.ts';
import type { PlatformErrorKind } from '../kit/platform-error.ts';

/**
 * How Instagram's refusals read, on graph.facebook.com and graph.instagram.com alike: Meta's
 * envelope, with Instagram's own subcodes (2207xxx) for containers and media, and a message
 * written for the user (`error_user_msg`) beside the developer's.
 * Facts: ../shared/platforms/oauth-majors.md, sections 3.5 and 4.5; Meta's Instagram error codes page.
 */
const instagramErrorBody = z.object({
  error: z.object({
    message: z.string(),
    code: z.number().optional(),
    error_subcode: z.number().optional(),
    error_user_title: z.string().optional(),
    error_user_msg: z.string().optional(),
    is_transient: z.boolean().optional(),
  }).loose(),
});

/** Meta's words for the user when it gives them (why a container or a media failed), else its own. */
export function instagramErrorMessage(body: unknown): string | undefined {
  const parsed = instagramErrorBody.safeParse(body);
  if (!parsed.success) return typeof body === 'string' && body !== '' ? body.slice(0, 500) : undefined;
  const { message, error_user_msg: userMessage } = parsed.data.error;
  return userMessage !== undefined && userMessage.trim() !== '' ? userMessage : message;
}

/** 9007: the container is not ready to publish yet (still processing). */
const mediaNotReady = 9007;
/** Subcodes Meta's table says to try again after: download timeout, server error, failed creation or upload. */
const transientSubcodes = new Set([2207001, 2207003, 2207032, 2207053, 2207082]);
/** A container that expired (24 h): the retry reads its status and creates it anew. */
const expiredSubcodes = new Set([2207020]);
/** Missing permission (10, 200-299): the user must connect again and grant it. */
const missingPermission = (code: number): boolean => code === 10 || (code >= 200 && code <= 299);

/** Throttling or the daily cap of API-published posts (code 9): both pass with time. */
function isThrottling(error: GraphRefusal): boolean {
  return error.subcode === publishingLimitSubcode || isGraphThrottling(error);
}

/**
 * Meta answers nearly everything with HTTP 400, so the kind comes from the codes: dead tokens
 * (190, 102) are `disconnected` (classifyGraphError), so are missing permissions; throttling and
 * the daily publishing cap, a container not ready yet, an expired container and the subcodes
 * Meta calls transient are `retryable`; every other container or media refusal (unsupported
 * image, bad aspect ratio, spam restriction...) is `permanent`, with Meta's message.
 */
export function classifyInstagramError(status: number, body: unknown): PlatformErrorKind | undefined {
  const graph = classifyGraphError(status, body);
  if (graph !== undefined) return graph;
  const error = readGraphRefusal(body);
  if (error === null) return undefined;
  const { code, subcode } = error;
  if (isThrottling(error) || code === mediaNotReady) return 'retryable';
  if (subcode !== null && (transientSubcodes.has(subcode) || expiredSubcodes.has(subcode))) return 'retryable';
  if (code !== null && missingPermission(code)) return 'disconnected';
  const parsed = instagramErrorBody.safeParse(body);
  if (parsed.success && parsed.data.error.is_transient === true) return 'retryable';
  return status >= 400 && status < 500 ? 'permanent' : undefined;
}
