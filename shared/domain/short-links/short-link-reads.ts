import type { Types } from 'mongoose';
import type { Database } from '../../db/database.ts';
import { shortLinkBase } from './shorten-links.ts';

/** A short link of a post as GET /posts/:id shows it. */
export interface ShortLinkView {
  code: string;
  url: string;
  target: string;
  part: number;
  channelId: string;
  clicks: number;
}

/** The post's short links, in the organization only: another organization's post id finds none. */
export async function shortLinksOfPost(
  db: Database,
  backendUrl: string,
  organizationId: string | Types.ObjectId,
  postId: Types.ObjectId,
): Promise<ShortLinkView[]> {
  const base = shortLinkBase(backendUrl);
  const links = await db.shortLinks.find({ postId, organizationId }).sort({ part: 1, _id: 1 }).lean();
  return links.map((link) => ({
    code: link.code,
    url: `${base}/${link.code}`,
    target: link.target,
    part: link.part,
    channelId: link.channelId.toString(),
    clicks: link.clicks,
  }));
}

/**
 * The address behind `code`, counting the click in the same atomic update ($inc), so concurrent
 * clicks are all counted; null for an unknown code.
 */
export async function followShortLink(
  db: Database,
  code: string,
): Promise<{ target: string; postId: string; organizationId: string } | null> {
  const link = await db.shortLinks.findOneAndUpdate(
    { code },
    { $inc: { clicks: 1 } },
    // No projection: FerretDB's findAndModify does not take one (the document is small anyway).
    { returnDocument: 'after' },
  ).lean();
  if (link === null) return null;
  return { target: link.target, postId: link.postId.toString(), organizationId: link.organizationId.toString() };
}
