import type { RateLimitDecision } from '../../middleware/fixed-window-limiter.ts';

/** The budget's window in words: "of the hour" with the default window, its length otherwise. */
export function budgetWindow(decision: RateLimitDecision): string {
  if (decision.windowSeconds === 3600) return 'of the hour';
  const minutes = Math.max(1, Math.round(decision.windowSeconds / 60));
  return `of its ${minutes}-minute window`;
}

/** When the budget is whole again, in minutes rounded up. */
export function budgetReset(decision: RateLimitDecision): string {
  const minutes = Math.ceil(decision.resetSeconds / 60);
  return `${minutes} ${minutes === 1 ? 'minute' : 'minutes'}`;
}
