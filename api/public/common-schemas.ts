import { z } from 'zod';
import { errorStatus } from '../../shared/errors.ts';

/** Ids are opaque strings; one that is not ours is answered 404, so only the length is bounded here. */
export const idParams = z.object({ id: z.string().min(1).max(100).describe('Resource id') });

export const errorBodySchema = z.object({
  statusCode: z.number().int(),
  error: z.enum(Object.keys(errorStatus) as [keyof typeof errorStatus, ...(keyof typeof errorStatus)[]]).describe('Stable snake_case code'),
  message: z.string().describe('Readable sentence'),
  details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
});

export const integrationRefSchema = z.object({
  id: z.string(),
  providerIdentifier: z.string(),
  name: z.string(),
  picture: z.string().nullable(),
});
