import { z } from 'zod';

/** The highest page whose offset (page × 100) is still an exact integer. */
const maxPage = Math.floor(Number.MAX_SAFE_INTEGER / 100);

export const listNotificationsQuery = z.object({
  page: z
    .string({ error: 'page must be given once, as a whole number' })
    .regex(/^\d+$/, 'page must be a whole number, 0 or more (pages are 0-indexed)')
    .transform(Number)
    .refine((page) => page <= maxPage, `page must be at most ${maxPage}`)
    .optional()
    .transform((page) => page ?? 0),
});
