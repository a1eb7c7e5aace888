import { z } from 'zod';
import { PlatformError, type PlatformErrorKind } from '../kit/platform-error.ts';
import { platformRequest } from '../kit/platform-http.ts';
import { unreadableAnswer } from '../kit/unreadable-answer.ts';

export const provider = 'hashnode';

const graphqlError = z.object({
  message: z.string(),
  extensions: z.object({ code: z.string().optional() }).optional(),
});
const graphqlErrors = z.object({ errors: z.array(graphqlError).min(1) });

export function hashnodeErrorMessage(body: unknown): string | undefined {
  const parsed = graphqlErrors.safeParse(body);
  return parsed.success ? parsed.data.errors.map((error) => error.message).join('; ') : undefined;
}

/** The first error's code: what the failure means, whatever the HTTP status (usually 200). */
export function hashnodeErrorCode(body: unknown): string | undefined {
  const parsed = graphqlErrors.safeParse(body);
  return parsed.success ? parsed.data.errors[0]?.extensions?.code : undefined;
}

/** Throttling codes a limit would carry; Hashnode does not enforce its published limits today. */
const throttleCodes = new Set(['TOO_MANY_REQUESTS', 'RATE_LIMITED']);

/**
 * Hashnode's codes (design-blogging-business.md 5.5): UNAUTHENTICATED is a revoked token or a
 * deactivated user; FORBIDDEN (no role, or no Pro plan), NOT_FOUND, BAD_USER_INPUT and
 * GRAPHQL_VALIDATION_FAILED do not change by trying again; INTERNAL_SERVER_ERROR may.
 */
export function kindForCode(code: string | undefined): PlatformErrorKind {
  if (code === 'UNAUTHENTICATED') return 'disconnected';
  if (code === 'INTERNAL_SERVER_ERROR' || (code !== undefined && throttleCodes.has(code))) return 'retryable';
  return 'permanent';
}

/** A failure Hashnode answered, which proves the mutation made nothing (not a server error). */
export function refusedByHashnode(error: unknown): boolean {
  if (!(error instanceof PlatformError) || error.httpStatus === null) return false;
  return error.kind !== 'retryable' || error.httpStatus === 429;
}

const envelope = z.object({ data: z.unknown().optional(), errors: z.unknown().optional() });
const answerOf = z.object({
  status: z.number(), body: z.unknown(), headers: z.record(z.string(), z.string().nullable()),
});

/** What one call answered: its data, and how old the answer is when a cache served it. */
export interface GraphqlAnswer {
  data: unknown;
  /** Seconds since the answer was made, per the `Age` header; null when it came fresh. */
  ageSeconds: number | null;
  /** How long the cache keeps it (`Cache-Control: max-age`), null when not said. */
  maxAgeSeconds: number | null;
}

const seconds = (value: string | null | undefined, pattern: RegExp): number | null => {
  const match = pattern.exec(value ?? '');
  return match?.[1] === undefined ? null : Number(match[1]);
};

/**
 * One GraphQL operation with the channel's personal access token, which Hashnode takes as the
 * Authorization header's value. A 200 carrying `errors` is a refusal like any other, classified
 * on its `extensions.code`; so is a 4xx Apollo answers before running the operation.
 */
export function hashnodeApi(apiUrl: string, timeoutMs: number) {
  return async (token: string, query: string, variables: Record<string, unknown> = {}): Promise<GraphqlAnswer> => {
    const raw = answerOf.parse(await platformRequest({
      provider,
      serverName: 'Hashnode',
      method: 'POST',
      url: apiUrl,
      headers: { Authorization: token },
      json: { query, variables },
      timeoutMs,
      withStatus: true,
      readHeaders: ['age', 'cache-control'],
      errorMessage: hashnodeErrorMessage,
      classify: (_status, body) => {
        const code = hashnodeErrorCode(body);
        return code === undefined ? undefined : kindForCode(code);
      },
    }));
    const code = hashnodeErrorCode(raw.body);
    const message = hashnodeErrorMessage(raw.body);
    if (message !== undefined) {
      throw new PlatformError({ kind: kindForCode(code), provider, httpStatus: raw.status, message, body: raw.body });
    }
    const body = envelope.safeParse(raw.body);
    if (!body.success || body.data.data === undefined || body.data.data === null) {
      throw new PlatformError({ kind: 'permanent', provider, message: 'Hashnode answered without data' });
    }
    return {
      data: body.data.data,
      ageSeconds: seconds(raw.headers.age, /^\s*(\d+)\s*$/),
      maxAgeSeconds: seconds(raw.headers['cache-control'], /max-age=(\d+)/),
    };
  };
}

export type HashnodeApi = ReturnType<typeof hashnodeApi>;

export function unreadable(what: string, cause?: unknown): PlatformError {
  return unreadableAnswer(provider, `Hashnode answered with ${what}`, { cause });
}
