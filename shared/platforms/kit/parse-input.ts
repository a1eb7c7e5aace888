import type { z } from 'zod';
import { PlatformError } from './platform-error.ts';

/**
 * Post settings or a tool's data read with the platform's schema; anything else is the caller's
 * mistake, refused as permanent with every problem named (`what: path: message; ...`).
 */
export function parseInput<T>(provider: string, what: string, schema: z.ZodType<T>, data: unknown): T {
  const parsed = schema.safeParse(data);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'data'}: ${issue.message}`);
  throw new PlatformError({ kind: 'permanent', provider, message: `${what}: ${problems.join('; ')}` });
}
