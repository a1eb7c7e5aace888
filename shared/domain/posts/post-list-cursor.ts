import { Types } from 'mongoose';
import { DomainError } from '../../errors.ts';

/** Where a page of GET /posts ended: the last post's publish date and id, the list's own order. */
export interface PostListPosition {
  publishDate: Date;
  id: Types.ObjectId;
}

export const postPageLimits = { max: 500 } as const;

/** Opaque to clients: base64url of `<ISO date>|<hex id>`, so its shape may change without notice. */
export function encodePostListCursor(position: PostListPosition): string {
  return Buffer.from(`${position.publishDate.toISOString()}|${position.id.toHexString()}`).toString('base64url');
}

export function decodePostListCursor(cursor: string): PostListPosition {
  const [date = '', id = ''] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const publishDate = new Date(date);
  if (!/^[0-9a-f]{24}$/.test(id) || Number.isNaN(publishDate.getTime()) || publishDate.toISOString() !== date) {
    throw new DomainError('validation_failed', 'cursor is not one this API gave', [
      { path: 'cursor', message: 'pass the cursor of the previous page as it was answered' },
    ]);
  }
  return { publishDate, id: new Types.ObjectId(id) };
}
