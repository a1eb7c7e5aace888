import type { z } from 'zod';
import { graphErrorMessage } from '../meta/meta-graph.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { platformRequest } from '../kit/platform-http.ts';
import { unreadableAnswer } from '../kit/unreadable-answer.ts';
import { threadsApiVersion } from './connect.ts';
import { metaRetryAfterMs } from '../meta/meta-graph-refusals.ts';
import { classifyThreadsError } from './threads-errors.ts';
import { trailingSlashes } from '../../net/trailing-slashes.ts';

export const provider = 'threads';

/** Calls to graph.threads.net for one channel, its token in `access_token` as Meta's references show. */
export interface ThreadsGraph {
  /** `path` after the version: `/me/threads`, `/{container-id}`. */
  get<T>(path: string, query: Record<string, string>, schema: z.ZodType<T>, what: string): Promise<T>;
  /** Parameters as a form body, which Graph reads like the query. */
  post<T>(path: string, parameters: Record<string, string>, schema: z.ZodType<T>, what: string): Promise<T>;
  /** `DELETE /{media-id}`: the token in the query, no body. */
  delete<T>(path: string, schema: z.ZodType<T>, what: string): Promise<T>;
}

export function unreadable(what: string, cause?: unknown): PlatformError {
  return unreadableAnswer(provider, `Threads answered with ${what}`, { cause });
}

export function threadsGraph(apiUrl: string, accessToken: string, timeoutMs: number): ThreadsGraph {
  const base = `${apiUrl.replace(trailingSlashes, '')}/${threadsApiVersion}`;

  async function call<T>(
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    parameters: Record<string, string>,
    schema: z.ZodType<T>,
    what: string,
  ): Promise<T> {
    const url = new URL(`${base}${path}`);
    if (method !== 'POST') {
      for (const [name, value] of Object.entries(parameters)) url.searchParams.set(name, value);
      url.searchParams.set('access_token', accessToken);
    }
    const body = await platformRequest({
      provider,
      method,
      url: url.toString(),
      ...(method === 'POST' ? { form: { ...parameters, access_token: accessToken } } : {}),
      timeoutMs,
      errorMessage: graphErrorMessage,
      classify: classifyThreadsError,
      retryAfterMs: metaRetryAfterMs,
    });
    const parsed = schema.safeParse(body);
    if (!parsed.success) throw unreadable(what, parsed.error);
    return parsed.data;
  }

  return {
    get: (path, query, schema, what) => call('GET', path, query, schema, what),
    post: (path, parameters, schema, what) => call('POST', path, parameters, schema, what),
    delete: (path, schema, what) => call('DELETE', path, {}, schema, what),
  };
}
