import Router from '@koa/router';
import type { AppState } from '../context.ts';
import type { Database } from '../../shared/db/database.ts';
import { followShortLink } from '../../shared/domain/short-links/short-link-reads.ts';
import { shortCodePattern, shortLinkPath } from '../../shared/domain/short-links/shorten-links.ts';

const notFoundPage = '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Link not found</title></head>'
  + '<body><h1>Link not found</h1><p role="alert">This short link does not exist: check the address.</p></body></html>';

/**
 * GET /l/:code: the short links of posts created with `shortLink: true`. No credentials (whoever
 * reads the post clicks); 302 to the original address, the click counted; an unknown code is a
 * 404 page (whoever follows a short link is a person with a browser).
 */
export function shortLinkRouter(db: Database): Router<AppState> {
  const router = new Router<AppState>();
  router.get(`${shortLinkPath}/:code`, async (ctx) => {
    const code = ctx.params.code ?? '';
    // A malformed code cannot exist: no database read for it.
    const link = shortCodePattern.test(code) ? await followShortLink(db, code) : null;
    // Every request is a click to count: no cache may answer in SPS's place.
    ctx.set('Cache-Control', 'no-store');
    if (link === null) {
      ctx.status = 404;
      ctx.type = 'html';
      ctx.body = notFoundPage;
      return;
    }
    ctx.state.requestLog.bind({ organizationId: link.organizationId, postId: link.postId });
    // Only the link's address leaves: the post's id stays private to its organization.
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.redirect(link.target);
  });
  return router;
}
