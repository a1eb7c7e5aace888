import type { z } from 'zod';
import { DomainError } from '../../../shared/errors.ts';

/**
 * A posted form read through its zod schema; a refusal is a 400 page naming the first problem in
 * words (the field's own message), never a 500.
 */
export function parseForm<Schema extends z.ZodType>(schema: Schema, body: unknown): z.output<Schema> {
  const parsed = schema.safeParse(typeof body === 'object' && body !== null ? body : {});
  if (parsed.success) return parsed.data;
  const [issue] = parsed.error.issues;
  const details = parsed.error.issues.map((one) => ({ path: one.path.join('.'), message: one.message }));
  // zod reports at least one issue with every failure; its own summary is only a fallback for the types.
  throw new DomainError('validation_failed', issue?.message ?? parsed.error.message, details);
}
