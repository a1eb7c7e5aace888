import { z } from 'zod';
import type { AdapterOptions, ChannelCredentials } from '../kit/platform-adapter.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { platformRequest, type MultipartBody } from '../kit/platform-http.ts';
import { unreadableAnswer } from '../kit/unreadable-answer.ts';
import { classifyLemmyRefusal, isThrottled, lemmyErrorMessage } from './lemmy-errors.ts';
import { trailingSlashes } from '../../net/trailing-slashes.ts';

export const provider = 'lemmy';
const serverName = 'the Lemmy instance';

/**
 * Lemmy's rate limiter keeps one token bucket per kind of action and IP (open-and-community.md
 * 7.7): `count` actions, refilled evenly over `perSecond` seconds. Anything not listed is a
 * "message" (every other API call).
 */
export type RateBucket = 'post' | 'comment' | 'image' | 'search' | 'message';

/** Lemmy's defaults, for an instance whose own settings cannot be read. */
const defaultLimits: Record<RateBucket, { count: number; perSecond: number }> = {
  post: { count: 6, perSecond: 600 },
  comment: { count: 6, perSecond: 600 },
  image: { count: 6, perSecond: 3600 },
  search: { count: 60, perSecond: 600 },
  message: { count: 180, perSecond: 60 },
};

const rateLimits = z.object({
  site_view: z.object({
    local_site_rate_limit: z.record(z.string(), z.unknown()),
  }),
});

const person = z.object({ id: z.number().int(), name: z.string().min(1) });
const siteOfUser = z.object({
  my_user: z.object({ local_user_view: z.object({ person }) }).nullish(),
});

export type LemmyPerson = z.infer<typeof person>;

/** The channel's instance and session: a Lemmy JWT, sent as a bearer token. */
export interface LemmySession {
  instance: string;
  jwt: string;
}

export function sessionOf(channel: ChannelCredentials): LemmySession {
  if (channel.instanceUrl === null) {
    const message = 'the channel has no Lemmy instance URL; connect it again';
    throw new PlatformError({ kind: 'disconnected', provider, message });
  }
  return { instance: channel.instanceUrl.replace(trailingSlashes, ''), jwt: channel.accessToken };
}

export interface LemmyCall {
  method: 'GET' | 'POST';
  /** Path on the instance, such as `/api/v3/post`. */
  path: string;
  query?: Record<string, string>;
  json?: unknown;
  multipart?: MultipartBody;
  /** Which of Lemmy's rate limits the call counts against; `message` unless said. */
  bucket?: RateBucket;
  timeoutMs?: number;
}

export function unreadable(what: string): PlatformError {
  return unreadableAnswer(provider, `Lemmy answered with ${what}`);
}

export type LemmyApi = ReturnType<typeof lemmyApi>;

/** Calls to the instance the user named: every one over a pinned, policy-checked connection. */
export function lemmyApi(options: AdapterOptions) {
  function send(session: LemmySession, call: LemmyCall): Promise<unknown> {
    const url = new URL(`${session.instance}${call.path}`);
    for (const [name, value] of Object.entries(call.query ?? {})) url.searchParams.set(name, value);
    return platformRequest({
      provider,
      serverName,
      method: call.method,
      url: url.toString(),
      headers: { Authorization: `Bearer ${session.jwt}` },
      ...(call.json === undefined ? {} : { json: call.json }),
      ...(call.multipart === undefined ? {} : { multipart: call.multipart }),
      timeoutMs: call.timeoutMs ?? options.timeoutMs,
      userHost: options.userHosts,
      errorMessage: lemmyErrorMessage,
      classify: classifyLemmyRefusal,
    });
  }

  /**
   * How long until the bucket holds one more token, from the instance's own settings
   * (`GET /api/v3/site` → `local_site_rate_limit`); Lemmy's defaults when they cannot be read,
   * since the throttle itself is what the caller reports, not this estimate of its end.
   */
  async function refillMs(session: LemmySession, bucket: RateBucket): Promise<number> {
    const fallback = defaultLimits[bucket];
    const none: Record<string, unknown> = {};
    const limits = await send(session, { method: 'GET', path: '/api/v3/site' }).then(
      (answer) => rateLimits.safeParse(answer).data?.site_view.local_site_rate_limit ?? none,
      (error: unknown) => {
        if (error instanceof PlatformError) return none;
        throw error;
      },
    );
    const positive = (value: unknown): number | null => (typeof value === 'number' && value > 0 ? value : null);
    const count = positive(limits[bucket]) ?? fallback.count;
    const perSecond = positive(limits[`${bucket}_per_second`]) ?? fallback.perSecond;
    return Math.ceil((perSecond * 1000) / count);
  }

  /**
   * One call; a throttle without a Retry-After (0.19 sends none) gets the bucket's refill time,
   * so the engine waits for the instance instead of spending an attempt.
   */
  async function call(session: LemmySession, request: LemmyCall): Promise<unknown> {
    try {
      return await send(session, request);
    } catch (error) {
      if (!(error instanceof PlatformError) || !isThrottled(error.body) || error.retryAfterMs !== null) throw error;
      const retryAfterMs = await refillMs(session, request.bucket ?? 'message');
      throw new PlatformError({
        kind: 'retryable',
        provider,
        message: error.message,
        httpStatus: error.httpStatus,
        retryAfterMs,
        body: error.body,
        cause: error,
      });
    }
  }

  /** The signed-in account, from `GET /api/v3/site`; a site answer without it means the session is gone. */
  async function me(session: LemmySession): Promise<LemmyPerson> {
    const site = siteOfUser.safeParse(await call(session, { method: 'GET', path: '/api/v3/site' }));
    if (!site.success) throw unreadable('site information');
    const account = site.data.my_user?.local_user_view.person;
    if (account === undefined) {
      const message = 'Lemmy: the instance no longer knows the session: connect the channel again';
      throw new PlatformError({ kind: 'disconnected', provider, message });
    }
    return account;
  }

  return { call, me };
}
