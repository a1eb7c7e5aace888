import { z } from 'zod';
import { errorStatus } from '../../shared/errors.ts';
import { measureJson, type JsonShapeLimits } from '../../shared/validation/json-shape.ts';

/** Ids are opaque strings; one that is not ours is answered 404, so only the length is bounded here. */
export const idParams = z.object({ id: z.string().min(1).max(100).describe('Resource id') });

type ErrorCodes = [keyof typeof errorStatus, ...(keyof typeof errorStatus)[]];
export const errorCodeSchema = z.enum(Object.keys(errorStatus) as ErrorCodes);

export const errorBodySchema = z.object({
  statusCode: z.number().int(),
  error: errorCodeSchema.describe('Stable snake_case code'),
  message: z.string().describe('Readable sentence'),
  details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
});

export const integrationRefSchema = z.object({
  id: z.string(),
  providerIdentifier: z.string(),
  name: z.string(),
  picture: z.string().nullable(),
});

/**
 * A free-form JSON object (post settings, tool input) that can be stored and queued: bounded
 * depth and size, and no key MongoDB would take for an operator or a path
 * (shared/validation/json-shape.ts). Problems are reported at their own path.
 */
export function boundedJsonObject(limits: JsonShapeLimits) {
  return z.record(z.string(), z.unknown()).superRefine((value, context) => {
    const { problem } = measureJson(value, limits);
    if (problem === null) return;
    const path = problem.path === '' ? [] : problem.path.split('.');
    context.addIssue({ code: 'custom', path, message: problem.message });
  });
}
