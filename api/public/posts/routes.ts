import Router from '@koa/router';
import { currentOrganization, type AppState } from '../../context.ts';
import { bodyLimits, jsonBody } from '../../middleware/json-body.ts';
import { createPosts, type CreatePostsDeps } from '../../../shared/domain/posts/create-posts.ts';
import { createPostsBody } from './schema.ts';

export function postsRoutes(deps: CreatePostsDeps): Router<AppState> {
  const router = new Router<AppState>();
  router.post('/posts', jsonBody(bodyLimits.posts), async (ctx) => {
    const input = createPostsBody.parse(ctx.request.body);
    ctx.status = 201;
    ctx.body = await createPosts(deps, currentOrganization(ctx).id, input);
  });
  return router;
}
