import type { z } from 'zod';

/**
 * The message of a required setting left out. zod 4 reports a missing key as its type error
 * ("Invalid input: expected string, received undefined"), never reaching the schema's own
 * messages (`min(1, 'a WordPress post needs a title')`); given as the schema's `error`
 * parameter, this says what the post needs instead. A value of the wrong type keeps zod's
 * message (returning undefined hands the issue on to it).
 */
export function whenMissing(message: string): { error: (issue: z.core.$ZodRawIssue) => string | undefined } {
  return { error: (issue) => (issue.input === undefined ? message : undefined) };
}
