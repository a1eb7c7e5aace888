import { Readable } from 'node:stream';
import { PlatformError } from '../kit/platform-error.ts';
import { platformRequest } from '../kit/platform-http.ts';
import { linkedinRestHeaders } from './linkedin-provider.ts';
import {
  classifyLinkedinRefusal, linkedinRefusalMessage, linkedinRetryAfterMs,
} from './linkedin-errors.ts';
import { trailingSlashes } from '../../net/trailing-slashes.ts';

export interface RestCall {
  method: 'GET' | 'POST' | 'DELETE';
  /** Path under the API origin, with its query already encoded the Rest.li way. */
  path: string;
  json?: unknown;
  /** Extra headers (X-RestLi-Method for finders and deletes). */
  headers?: Record<string, string>;
}

/** The bytes of an upload: a buffer in hand, or a stream of known length. */
export interface UploadBody {
  data: Buffer | Readable;
  length: number;
  contentType: string;
}

/** An answer this large is not LinkedIn's JSON. */
const maxAnswerBytes = 1024 * 1024;

async function readAnswer(body: ReadableStream<Uint8Array> | null): Promise<string> {
  if (body === null) return '';
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.byteLength;
    if (size > maxAnswerBytes) throw new Error(`the answer is over ${String(maxAnswerBytes)} bytes`);
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseAnswer(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    // An HTML error page from a proxy: its start becomes the message.
    return text;
  }
}

/**
 * LinkedIn's versioned API for one platform room (`linkedin` or `linkedin-page`). JSON calls go
 * through the kit's platformRequest. Two kinds of call cannot: POST /rest/posts answers 201 with an
 * empty body and names the post only in the `x-restli-id` header, and uploads PUT raw bytes and
 * read the part's `ETag`; platformRequest sends no raw bodies and hands back no headers, so those
 * are sent here with the same timeout, classification and wording.
 */
export class LinkedinApi {
  readonly provider: string;
  readonly #apiUrl: string;
  readonly #timeoutMs: number;

  constructor(provider: string, apiUrl: string, timeoutMs: number) {
    this.provider = provider;
    this.#apiUrl = apiUrl.replace(trailingSlashes, '');
    this.#timeoutMs = timeoutMs;
  }

  /** A JSON call under /rest (or /v2), answering the parsed body. */
  rest(accessToken: string, call: RestCall): Promise<unknown> {
    return platformRequest({
      provider: this.provider,
      serverName: 'LinkedIn',
      method: call.method,
      url: `${this.#apiUrl}${call.path}`,
      headers: { ...linkedinRestHeaders(accessToken), ...call.headers },
      ...(call.json === undefined ? {} : { json: call.json }),
      timeoutMs: this.#timeoutMs,
      errorMessage: linkedinRefusalMessage,
      classify: classifyLinkedinRefusal,
      retryAfterMs: linkedinRetryAfterMs,
    });
  }

  /** A create call whose answer names the new entity in `x-restli-id` (POST /rest/posts). */
  async create(accessToken: string, path: string, json: unknown): Promise<string> {
    const headers = { ...linkedinRestHeaders(accessToken), 'Content-Type': 'application/json' };
    const answer = await this.#send('POST', `${this.#apiUrl}${path}`, headers, JSON.stringify(json));
    const id = answer.header('x-restli-id');
    if (id === null || id === '') {
      const message = 'LinkedIn accepted the post without naming it (no x-restli-id)';
      throw new PlatformError({ kind: 'unconfirmed', provider: this.provider, message });
    }
    return id;
  }

  /**
   * PUTs bytes to an upload URL LinkedIn handed back (followed verbatim, never rebuilt); answers
   * the part's ETag. Image uploads carry the bearer token; video part URLs are signed.
   */
  async upload(url: string, body: UploadBody, accessToken: string | null): Promise<string | null> {
    const headers: Record<string, string> = {
      'Content-Type': body.contentType,
      'Content-Length': String(body.length),
      ...(accessToken === null ? {} : { Authorization: `Bearer ${accessToken}` }),
    };
    const answer = await this.#send('PUT', url, headers, body.data);
    return answer.header('etag');
  }

  async #send(
    method: 'POST' | 'PUT',
    url: string,
    extraHeaders: Record<string, string>,
    body: string | Buffer | Readable,
  ): Promise<{ header: (name: string) => string | null }> {
    const headers = {
      Accept: 'application/json', 'User-Agent': 'SPS/0.1 (Social Publishing Service)', ...extraHeaders,
    };
    const signal = AbortSignal.timeout(this.#timeoutMs);
    const sent = body instanceof Readable ? (Readable.toWeb(body) as ReadableStream<Uint8Array>) : body;
    let status: number;
    let header: (name: string) => string | null;
    let text: string;
    try {
      const response = await fetch(url, {
        method, headers, body: sent, signal, redirect: 'error', ...(body instanceof Readable ? { duplex: 'half' } : {}),
      });
      status = response.status;
      header = (name) => response.headers.get(name);
      text = await readAnswer(response.body);
    } catch (error) {
      if (body instanceof Readable) body.destroy();
      const message = signal.aborted
        ? `LinkedIn did not answer within ${String(this.#timeoutMs)} ms`
        : 'could not reach LinkedIn';
      throw new PlatformError({ kind: 'retryable', provider: this.provider, message, cause: error });
    }
    if (status >= 200 && status < 300) return { header };
    const parsed = parseAnswer(text);
    const fallback = typeof parsed === 'string' && parsed !== ''
      ? parsed.slice(0, 500)
      : `LinkedIn answered HTTP ${String(status)}`;
    const failure = new PlatformError({
      kind: classifyLinkedinRefusal(status, parsed) ?? 'permanent',
      provider: this.provider,
      httpStatus: status,
      retryAfterMs: linkedinRetryAfterMs(status, header, Date.now()),
      message: linkedinRefusalMessage(parsed) ?? fallback,
      body: parsed,
    });
    throw failure;
  }
}
