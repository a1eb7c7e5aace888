import { z } from 'zod';
import { PlatformError } from '../kit/platform-error.ts';

/**
 * A Pinterest channel is one board: publishing needs the user's token and the board id, and a
 * refresh must keep the board, so the stored access and refresh tokens each carry it.
 */
const boardId = z.string().regex(/^\d+$/);

const boardCredential = z.object({ accessToken: z.string().min(1), boardId });
const boardRefresh = z.object({ refreshToken: z.string().min(1), boardId });

export type PinterestCredential = z.infer<typeof boardCredential>;
export type PinterestRefresh = z.infer<typeof boardRefresh>;

function readStored<T>(schema: z.ZodType<T>, stored: string, what: string): T {
  let value: unknown;
  try {
    value = JSON.parse(stored) as unknown;
  } catch (error) {
    const message = `the stored ${what} is not JSON`;
    throw new PlatformError({ kind: 'disconnected', provider: 'pinterest', message, cause: error });
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const message = `the stored ${what} is malformed`;
    throw new PlatformError({ kind: 'disconnected', provider: 'pinterest', message });
  }
  return parsed.data;
}

export function encodePinterestCredential(credential: PinterestCredential): string {
  return JSON.stringify(boardCredential.parse(credential));
}

/** What the publishing adapter reads back from a Pinterest channel's token. */
export function readPinterestCredential(accessToken: string): PinterestCredential {
  return readStored(boardCredential, accessToken, 'Pinterest credential');
}

export function encodePinterestRefresh(refresh: PinterestRefresh): string {
  return JSON.stringify(boardRefresh.parse(refresh));
}

export function readPinterestRefresh(refreshToken: string): PinterestRefresh {
  return readStored(boardRefresh, refreshToken, 'Pinterest refresh token');
}
