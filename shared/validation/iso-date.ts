import { z } from 'zod';

const isoDateTime = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/** ISO 8601 date or date-time; one without an offset is taken as UTC (CONTRACT: Dates). */
export const isoDate = z
  .string()
  .max(40)
  .regex(isoDateTime, 'must be an ISO 8601 date, e.g. 2026-12-01T09:30:00Z')
  .transform((value, context) => {
    const hasOffset = /(Z|[+-]\d{2}:?\d{2})$/i.test(value);
    const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(value);
    const parsed = new Date(dateOnly ? `${value}T00:00:00Z` : hasOffset ? value : `${value.replace(' ', 'T')}Z`);
    if (Number.isNaN(parsed.getTime())) {
      context.addIssue({ code: 'custom', message: 'is not a real calendar date' });
      return z.NEVER;
    }
    return parsed;
  });
