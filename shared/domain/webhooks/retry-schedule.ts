/** Where a delivery goes after an attempt that did not get a 2xx. */
export type AfterFailure = { status: 'pending'; nextAttemptAt: Date } | { status: 'failed'; nextAttemptAt: null };

/**
 * `schedule` holds the waits after the 1st, 2nd... failed attempt (WEBHOOK_RETRY_SCHEDULE_MS);
 * once `attemptsMade` is past its end there is no next attempt.
 */
export function afterFailedAttempt(attemptsMade: number, schedule: readonly number[], now: Date): AfterFailure {
  const wait = schedule[attemptsMade - 1];
  if (wait === undefined) return { status: 'failed', nextAttemptAt: null };
  return { status: 'pending', nextAttemptAt: new Date(now.getTime() + wait) };
}
