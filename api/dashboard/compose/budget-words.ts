import type { RateLimitDecision } from '../../middleware/fixed-window-limiter.ts';
import type { Translate } from '../i18n/translate.ts';

/** The budget's window in words: "of the hour" with the default window, its length otherwise. */
export function budgetWindow(decision: RateLimitDecision, t: Translate): string {
  if (decision.windowSeconds === 3600) return t('compose.budgetWindowHour');
  const minutes = Math.max(1, Math.round(decision.windowSeconds / 60));
  return t('compose.budgetWindowMinutes', { minutes });
}

/** When the budget is whole again, in minutes rounded up. */
export function budgetReset(decision: RateLimitDecision, t: Translate): string {
  return t.count('compose.budgetReset', Math.ceil(decision.resetSeconds / 60));
}
