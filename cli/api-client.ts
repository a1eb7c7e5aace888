import { z } from 'zod';
import type { ActiveCredential } from './active-credential.ts';
import { ApiError, CliError } from './cli-error.ts';

export interface ApiRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Under /public/v1, starting with a slash; callers encode path segments with `segment`. */
  path: string;
  query?: Record<string, string | undefined>;
  body?: unknown;
  /** Extra request headers, e.g. `Prefer: respond-async`. */
  headers?: Record<string, string>;
}

export interface ApiAnswer {
  status: number;
  body: unknown;
}

const errorBodySchema = z.object({
  error: z.string(),
  message: z.string(),
  details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
});

/** One path segment, encoded so an id cannot change the route. */
export function segment(value: string): string {
  return encodeURIComponent(value);
}

export function publicApiUrl(apiUrl: string, path: string, query: Record<string, string | undefined> = {}): URL {
  const url = new URL(`${apiUrl}/public/v1${path}`);
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined) url.searchParams.set(name, value);
  }
  return url;
}

/** A readable sentence for a connection that failed before any answer (refused, DNS, reset...). */
export function networkFailure(url: URL, error: unknown): CliError {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new CliError(`could not reach ${url.origin}: ${reason}`);
}

/** The JSON of a 2xx answer, or the ApiError the server described. */
export function interpretAnswer(status: number, text: string, retryAfter: string | null): ApiAnswer {
  let body: unknown = null;
  let isJson = false;
  if (text !== '') {
    try {
      body = JSON.parse(text);
      isJson = true;
    } catch {
      isJson = false;
    }
  }
  if (status >= 200 && status < 300) {
    if (!isJson) throw new CliError(`the API answered HTTP ${status} without a JSON body`);
    return { status, body };
  }
  const described = errorBodySchema.safeParse(body);
  if (described.success) {
    throw new ApiError({ status, code: described.data.error, message: described.data.message, details: described.data.details ?? [], retryAfter });
  }
  const excerpt = text.trim().slice(0, 200);
  throw new ApiError({ status, code: `http_${status}`, message: excerpt === '' ? 'the API answered with an error and no explanation' : excerpt, retryAfter });
}

export async function callApi(credential: ActiveCredential, request: ApiRequest): Promise<ApiAnswer> {
  const url = publicApiUrl(credential.apiUrl, request.path, request.query);
  const headers: Record<string, string> = {
    ...request.headers, Authorization: credential.token, Accept: 'application/json',
  };
  let body: string | undefined;
  if (request.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(request.body);
  }
  let response: Response;
  let text: string;
  try {
    response = await fetch(url, { method: request.method, headers, body });
    text = await response.text();
  } catch (error) {
    throw networkFailure(url, error);
  }
  return interpretAnswer(response.status, text, response.headers.get('retry-after'));
}
