import { z } from 'zod';
import { storedCredential } from '../kit/stored-credential.ts';

/**
 * A Pinterest channel is one board: publishing needs the user's token and the board id, and a
 * refresh must keep the board, so the stored access and refresh tokens each carry it.
 */
const boardId = z.string().regex(/^\d+$/);

const boardCredential = z.object({ accessToken: z.string().min(1), boardId });
const boardRefresh = z.object({ refreshToken: z.string().min(1), boardId });

export type PinterestCredential = z.infer<typeof boardCredential>;
export type PinterestRefresh = z.infer<typeof boardRefresh>;

export const { encode: encodePinterestCredential, read: readPinterestCredential } = storedCredential(boardCredential, {
  provider: 'pinterest', what: 'Pinterest credential', reconnect: 'connect the board again',
});

export const { encode: encodePinterestRefresh, read: readPinterestRefresh } = storedCredential(boardRefresh, {
  provider: 'pinterest', what: 'Pinterest refresh token', reconnect: 'connect the board again',
});
