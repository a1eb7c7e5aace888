import { z } from 'zod';

const errorBody = z.object({ error: z.string(), error_description: z.string().optional() });

/** Mastodon's own words from an error answer: `{error}`, with Doorkeeper's `error_description`. */
export function mastodonErrorMessage(body: unknown): string | undefined {
  const parsed = errorBody.safeParse(body);
  if (!parsed.success) return undefined;
  return parsed.data.error_description === undefined
    ? parsed.data.error
    : `${parsed.data.error}: ${parsed.data.error_description}`;
}
