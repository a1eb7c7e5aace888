import { z } from 'zod';
import type { PlatformErrorKind } from '../kit/platform-error.ts';

/**
 * listmonk's refusals (design-blogging-business.md 8.5): `{"message": "…"}` with the status.
 * Bad credentials are 403 in v4 and later ("invalid API credentials", "invalid session" without
 * a header, echo's "code=400, message=…" for a malformed one), 401 "Unauthorized" before v4
 * (the admin's Basic auth); a role without a permission is 403 "permission denied: <perm>";
 * content it cannot take is 400. listmonk has no rate limiter of its own: a 429 comes from a
 * proxy in front of it, with its Retry-After.
 */
const refusal = z.object({ message: z.string() });

/** listmonk's own words, as it answered them. */
export function listmonkMessage(body: unknown): string | undefined {
  const parsed = refusal.safeParse(body);
  return parsed.success ? parsed.data.message : undefined;
}

const credentialRefusals = /^(invalid API credentials|invalid session|code=400, message=)/;

/**
 * A 403 is the credentials only when listmonk says so: a missing permission is the role's
 * setting, which a new attempt cannot change and reconnecting would not fix either.
 */
export function classifyListmonkRefusal(status: number, body: unknown): PlatformErrorKind | undefined {
  if (status !== 403) return undefined;
  return credentialRefusals.test(listmonkMessage(body) ?? '') ? 'disconnected' : 'permanent';
}

/** For messages shown with a post: listmonk's words, named, with what to change for a permission. */
export function publishingMessage(body: unknown): string | undefined {
  const message = listmonkMessage(body);
  if (message === undefined) return undefined;
  const permission = /^permission denied: (\S+)/.exec(message)?.[1];
  if (permission !== undefined) return `listmonk: ${message} (give the API user's role ${permission})`;
  return `listmonk: ${message}`;
}
