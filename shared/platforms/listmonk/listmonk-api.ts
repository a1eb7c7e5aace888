import { z } from 'zod';
import type { AdapterOptions, ChannelCredentials } from '../kit/platform-adapter.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { platformRequest, type MultipartBody } from '../kit/platform-http.ts';
import { unreadableAnswer } from '../kit/unreadable-answer.ts';
import { listmonkAuthorization, readListmonkCredential } from './credential.ts';
import { classifyListmonkRefusal, publishingMessage } from './listmonk-errors.ts';
import { trailingSlashes } from '../../net/trailing-slashes.ts';

export const provider = 'listmonk';
const serverName = 'the listmonk instance';

/** The channel's instance root, such as https://lists.example.com. */
export function rootOf(channel: ChannelCredentials): string {
  if (channel.instanceUrl === null) {
    const message = 'the channel has no listmonk address; connect the instance again';
    throw new PlatformError({ kind: 'disconnected', provider, message });
  }
  return channel.instanceUrl.replace(trailingSlashes, '');
}

export function unreadable(what: string): PlatformError {
  return unreadableAnswer(provider, `listmonk answered with ${what}`);
}

/** Every answer is `{data: …}`; this reads the data with its own schema. */
export function dataOf<T>(schema: z.ZodType<T>, answer: unknown, what: string): T {
  const parsed = z.object({ data: schema }).safeParse(answer);
  if (!parsed.success) throw unreadable(what);
  return parsed.data.data;
}

export interface ListmonkCall {
  method: 'GET' | 'POST' | 'PUT';
  /** Path on the instance, such as `/api/campaigns`. */
  path: string;
  query?: Record<string, string>;
  json?: unknown;
  multipart?: MultipartBody;
  timeoutMs?: number;
}

export type ListmonkApi = ReturnType<typeof listmonkApi>;

/** Calls to the instance the user named, each over a pinned, policy-checked connection. */
export function listmonkApi(options: AdapterOptions) {
  return {
    call(channel: ChannelCredentials, call: ListmonkCall): Promise<unknown> {
      const url = new URL(`${rootOf(channel)}${call.path}`);
      for (const [name, value] of Object.entries(call.query ?? {})) url.searchParams.set(name, value);
      return platformRequest({
        provider,
        serverName,
        method: call.method,
        url: url.toString(),
        headers: { Authorization: listmonkAuthorization(readListmonkCredential(channel.accessToken)) },
        ...(call.json === undefined ? {} : { json: call.json }),
        ...(call.multipart === undefined ? {} : { multipart: call.multipart }),
        timeoutMs: call.timeoutMs ?? options.timeoutMs,
        userHost: options.userHosts,
        errorMessage: publishingMessage,
        classify: classifyListmonkRefusal,
      });
    },
  };
}
