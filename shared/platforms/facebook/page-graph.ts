import type { z } from 'zod';
import type { PublishMedia } from '../kit/platform-adapter.ts';
import { PlatformError, type PlatformErrorKind } from '../kit/platform-error.ts';
import { platformRequest } from '../kit/platform-http.ts';
import { unreadableAnswer } from '../kit/unreadable-answer.ts';
import { graphApiVersion } from '../meta/meta-graph.ts';
import {
  classifyGraphRefusal, graphRefusalMessage, graphRetryAfterMs, readGraphRefusal,
} from '../meta/meta-graph-refusals.ts';
import { trailingSlashes } from '../../net/trailing-slashes.ts';

const provider = 'facebook';

/**
 * Calls on the Graph API with a Page token, as the Facebook adapter makes them: the token in
 * `Authorization: OAuth` (never in a URL that could be logged), refusals classified on Meta's
 * codes, throttling delayed by the usage headers' reset, answers read with zod.
 */
export interface PageGraph {
  get<T>(path: string, query: Record<string, string>, token: string, answer: z.ZodType<T>, what: string): Promise<T>;
  postForm<T>(call: GraphPost & { form: Record<string, string> }, answer: z.ZodType<T>, what: string): Promise<T>;
  /** A multipart POST with the file streamed from storage as `fileField`. */
  postFile<T>(
    call: GraphPost & { fields: Record<string, string>; fileField: string; file: PublishMedia },
    answer: z.ZodType<T>,
    what: string,
  ): Promise<T>;
  /** DELETE of an object the Page owns (a post, a video, a comment), the id in the path. */
  delete<T>(path: string, token: string, answer: z.ZodType<T>, what: string): Promise<T>;
}

export interface GraphPost {
  path: string;
  token: string;
  /** Videos go to graph-video.facebook.com, everything else to graph.facebook.com. */
  host?: 'graph' | 'video';
  /**
   * A retry of a call that may already have succeeded: Meta's duplicate refusal (506) then means
   * the first attempt did publish, which the adapter could not find, so the part is unconfirmed.
   */
  repeat?: boolean;
}

/** Code 506: "Duplicate status message". */
const duplicatePost = 506;

/**
 * Videos must be sent to graph-video.facebook.com. An operator (or a test) pointing
 * FACEBOOK_API_URL elsewhere serves both from that one origin.
 */
export function videoHostOf(apiUrl: string): string {
  const url = new URL(apiUrl);
  if (url.hostname !== 'graph.facebook.com') return apiUrl;
  url.hostname = 'graph-video.facebook.com';
  return url.origin;
}

function unreadable(what: string, cause: unknown): PlatformError {
  return unreadableAnswer(provider, `Facebook answered with ${what}`, { cause });
}

export function createPageGraph(apiUrl: string, timeoutMs: number): PageGraph {
  const graph = apiUrl.replace(trailingSlashes, '');
  const origins = { graph, video: videoHostOf(graph) };

  const classify = (repeat: boolean) => (status: number, body: unknown): PlatformErrorKind | undefined => {
    if (repeat && readGraphRefusal(body)?.code === duplicatePost) return 'unconfirmed';
    return classifyGraphRefusal(status, body, { refreshable: false });
  };

  async function read<T>(raw: Promise<unknown>, answer: z.ZodType<T>, what: string): Promise<T> {
    const parsed = answer.safeParse(await raw);
    if (!parsed.success) throw unreadable(what, parsed.error);
    return parsed.data;
  }

  const common = (token: string, repeat: boolean) => ({
    provider,
    headers: { Authorization: `OAuth ${token}` },
    timeoutMs,
    errorMessage: graphRefusalMessage,
    classify: classify(repeat),
    retryAfterMs: graphRetryAfterMs,
  });

  const urlOf = (call: GraphPost) => `${origins[call.host ?? 'graph']}/${graphApiVersion}${call.path}`;

  return {
    get(path, query, token, answer, what) {
      const search = new URLSearchParams(query).toString();
      const url = `${origins.graph}/${graphApiVersion}${path}${search === '' ? '' : `?${search}`}`;
      return read(platformRequest({ ...common(token, false), method: 'GET', url }), answer, what);
    },

    postForm(call, answer, what) {
      const request = { ...common(call.token, call.repeat === true), method: 'POST' as const, url: urlOf(call) };
      return read(platformRequest({ ...request, form: call.form }), answer, what);
    },

    postFile(call, answer, what) {
      const multipart = { fields: call.fields, fileField: call.fileField, file: call.file };
      const request = { ...common(call.token, call.repeat === true), method: 'POST' as const, url: urlOf(call) };
      return read(platformRequest({ ...request, multipart }), answer, what);
    },

    delete(path, token, answer, what) {
      const url = `${origins.graph}/${graphApiVersion}${path}`;
      return read(platformRequest({ ...common(token, false), method: 'DELETE', url }), answer, what);
    },
  };
}
