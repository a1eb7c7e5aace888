/** Seconds or an HTTP date, per RFC 9110; anything else is ignored. */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | null {
  if (value === null || value.trim() === '') return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/**
 * The wait an answer's Retry-After header asks for: what platform-http reads by default, and
 * where a room's own reading of a refusal (a body's delay, a reset header) leaves off.
 */
export function retryAfterHeaderMs(header: (name: string) => string | null, now: number): number | null {
  return parseRetryAfter(header('retry-after'), now);
}
