import { z } from 'zod';

const entry = /^\s*([a-z][a-z0-9-]*)\s*=\s*([1-9]\d*)\s*$/;

/**
 * A per-platform bound on concurrent publishes, as the operator writes it: `platform=count`
 * pairs, comma-separated (`warpcast=4,telegram=20`); empty means none. The names are checked
 * against the platforms when the workers start (platform-call-slots.ts).
 */
export const platformConcurrencySchema = z
  .string()
  .default('')
  .refine(
    (list) => list.trim() === '' || list.split(',').every((pair) => entry.test(pair)),
    'comma-separated platform=count pairs, e.g. warpcast=4,telegram=20',
  )
  .transform((list): Record<string, number> => Object.fromEntries(
    list.trim() === '' ? [] : list.split(',').map((pair) => {
      const [, platform = '', count = ''] = entry.exec(pair) ?? [];
      return [platform, Number(count)];
    }),
  ));
