import { z } from 'zod';
import { idParams } from '../common-schemas.ts';
import { defineRoute, type RouteDefinition } from '../route-definition.ts';
import type { PublicApiDeps } from '../public-api-deps.ts';
import { bodyLimits } from '../../middleware/json-body.ts';
import { createPosts } from '../../../shared/domain/posts/create-posts.ts';
import { changePostStatus, deleteGroup, deletePost, setReleaseId } from '../../../shared/domain/posts/post-changes.ts';
import { missingReleaseId } from '../../../shared/domain/posts/missing-release-id.ts';
import {
  findOwnedPost, getReadablePost, listPosts, type PostWithThread,
} from '../../../shared/domain/posts/post-queries.ts';
import { retryUnpublishedParts } from '../../../shared/domain/posts/retry-post.ts';
import { validatePosts } from '../../../shared/domain/posts/validate-posts.ts';
import { deleteSeries } from '../../../shared/domain/posts/recurrence-series.ts';
import { shortLinksOfPost } from '../../../shared/domain/short-links/short-link-reads.ts';
import { DomainError } from '../../../shared/errors.ts';
import { publishingProviders } from '../../../shared/platforms/platforms.ts';
import { presentListedPost, presentPost } from './present.ts';
import {
  changeStatusBody, createPostsBody, deleteGroupQuery, deleteGroupResponse, deletePostQuery, deletePostResponse,
  createPostsResponse, groupParams, listPostsQuery, listPostsResponse,
  postDetailSchema, releaseIdBody, validatePostsResponse,
} from './schema.ts';

export function postRoutes(deps: PublicApiDeps): RouteDefinition[] {
  /** A post as the detail answers show it: its parts and, read in its organization, its short links. */
  const detailed = async (post: PostWithThread) => ({
    ...presentPost(post),
    shortLinks: await shortLinksOfPost(deps.db, deps.backendUrl, post.root.organizationId, post.root._id),
  });
  return [
    defineRoute({
      method: 'post', path: '/posts', tag: 'Posts',
      scope: 'posts', status: 201, bodyLimit: bodyLimits.posts, idempotent: true,
      errors: [
        'validation_failed', 'invalid_json', 'not_found', 'unknown_media', 'media_not_public', 'conflict',
        'payload_too_large', 'unsupported_media_type', 'service_unavailable',
      ],
      summary: 'Create, schedule, publish now, or edit posts on one or more channels',
      description: 'value[0] is the post; value[1..] become thread replies or comments where the platform has them. Each channel\'s platform rules (text limit, media, settings) are checked unless the post is a draft.',
      body: createPostsBody,
      response: createPostsResponse,
      handle: ({ organization, body }) => createPosts(deps, organization.id, body),
    }),
    defineRoute({
      method: 'post', path: '/posts/validate', tag: 'Posts', scope: 'posts', status: 200, bodyLimit: bodyLimits.posts,
      budget: 'post-validation',
      errors: [
        'validation_failed', 'invalid_json', 'payload_too_large', 'unsupported_media_type', 'service_unavailable',
      ],
      summary: 'Dry run of POST /posts: every check it makes, answered as problems; nothing stored or queued',
      description: 'Takes the body of POST /posts. A body its schema refuses is answered as POST /posts answers '
        + 'it (400); every other refusal becomes a problem naming the channel, the part, the path and the '
        + 'code and message POST /posts would give. Media given by URL are not imported: they count as '
        + 'imports still running. Counts against its own hourly budget (RateLimit-Policy "post-validation"), '
        + 'not the one POST /posts spends.',
      body: createPostsBody,
      response: validatePostsResponse,
      handle: ({ organization, body }) => validatePosts(deps, organization.id, body),
    }),
    defineRoute({
      method: 'get', path: '/posts', tag: 'Posts', scope: 'posts', status: 200, errors: ['validation_failed'],
      summary: 'List posts (root posts only) whose publish date is in a range',
      query: listPostsQuery,
      response: listPostsResponse,
      handle: async ({ organization, query }) => {
        const { posts, channels, cursor } = await listPosts(deps.db, organization.id, query);
        const listed = posts.map((post) => presentListedPost(post, channels.get(post.channelId.toString())));
        return cursor === undefined ? { posts: listed } : { posts: listed, cursor };
      },
    }),
    defineRoute({
      method: 'get', path: '/posts/:id', tag: 'Posts', scope: 'posts', status: 200, errors: ['not_found'],
      summary: 'One post with its thread parts and each part\'s state',
      description: 'A post deleted with onPlatform=true is still answered, with deletedAt and removal saying '
        + 'what became of each part on the platform; any other deleted post is 404.',
      params: idParams,
      response: postDetailSchema,
      handle: async ({ organization, params }) => detailed(await getReadablePost(deps.db, organization.id, params.id)),
    }),
    defineRoute({
      method: 'delete', path: '/posts/group/:group', tag: 'Posts', scope: 'posts', status: 200, errors: ['not_found'],
      summary: 'Delete every post of a group; posts being published at that moment are skipped and listed',
      description: 'With onPlatform=true each deleted post is also taken off its platform, as DELETE /posts/:id '
        + 'does: removals holds one plan per post (channel).',
      params: groupParams,
      query: deleteGroupQuery,
      response: deleteGroupResponse,
      handle: ({ organization, params, query }) =>
        deleteGroup(deps, organization.id, params.group, { onPlatform: query.onPlatform === 'true' }),
    }),
    defineRoute({
      method: 'delete', path: '/posts/:id', tag: 'Posts',
      scope: 'posts', status: 200, errors: ['not_found', 'conflict', 'validation_failed'],
      summary: 'Delete a post with its comments on that channel and cancel its job',
      description: 'An occurrence of a recurring post is deleted alone and its series goes on with the next '
        + 'occurrence; with series=true every occurrence not yet published is deleted, this one included, and '
        + 'the series ends (published ones stay). series=true on a post that does not repeat is 400.\n\n'
        + 'onPlatform=true also takes the published parts off the platform, where its API can: the answer\'s '
        + 'removal lists each part as queued (a worker job removes it, replies first, each once, retrying '
        + 'what the platform could not do yet), not_published, unconfirmed, or unsupported with the reason '
        + '(the platform cannot, or SPS does not do it yet). The post is deleted in SPS either way, stays '
        + 'readable by GET /posts/:id with each part\'s outcome (removed or failed, with the category and the '
        + 'platform\'s message), and post.deleted is told once every part is settled, with the same removal. '
        + 'Not with series=true (400).',
      params: idParams,
      query: deletePostQuery,
      response: deletePostResponse,
      handle: async ({ organization, params, query }) => {
        if (query.series === 'true' && query.onPlatform === 'true') {
          const message = 'onPlatform=true deletes one post; it cannot go with series=true';
          const details = [{ path: 'onPlatform', message: 'not with series=true' }];
          throw new DomainError('validation_failed', message, details);
        }
        if (query.series !== 'true') {
          return deletePost(deps, organization.id, params.id, { onPlatform: query.onPlatform === 'true' });
        }
        const series = await deleteSeries(deps, organization.id, params.id);
        return { id: params.id, deleted: true as const, series };
      },
    }),
    defineRoute({
      method: 'put', path: '/posts/:id/status', tag: 'Posts', scope: 'posts', status: 200,
      errors: ['not_found', 'conflict', 'validation_failed', 'unknown_media', 'media_not_public'],
      summary: 'Turn a post into a draft (its job is removed) or schedule it again',
      description: 'Scheduling checks the channel\'s platform rules as POST /posts does '
        + '(drafts are stored without them) and answers 400 naming the rule a post breaks.',
      params: idParams,
      body: changeStatusBody,
      response: z.object({ id: z.string(), state: z.enum(['DRAFT', 'QUEUE']) }),
      handle: ({ organization, params, body }) => changePostStatus(deps, organization.id, params.id, body.status),
    }),
    defineRoute({
      method: 'post', path: '/posts/:id/retry', tag: 'Posts',
      scope: 'posts', status: 202, errors: ['not_found', 'conflict'],
      summary: 'Publish again only the parts of a failed post the platform has not accepted',
      description: ':id is the post (its root part, as GET /posts/:id takes); a thread part\'s id, a deleted post '
        + 'or another organization\'s is 404. The failed parts go back to QUEUE and the post\'s one publish '
        + 'job is queued: it resumes after the last published part, each reply answering the part before it, '
        + 'and sends the usual post.published or post.failed. Answers the post as GET /posts/:id does. 409 when '
        + 'there is nothing to retry: every part published, a part still queued or being published (a '
        + 'concurrent retry included), a draft, or a part the platform may have published unconfirmed. '
        + 'Counts against the organization\'s hourly budget like POST /posts, since it starts a publication.',
      params: idParams,
      response: postDetailSchema,
      handle: async ({ organization, params }) =>
        detailed(await retryUnpublishedParts(deps, organization.id, params.id)),
    }),
    defineRoute({
      method: 'get', path: '/posts/:id/missing', tag: 'Posts',
      scope: 'posts', status: 200,
      errors: ['not_found', 'not_missing', 'not_implemented', 'platform_error', 'platform_timeout'],
      summary: 'Recent content on the platform, to pick the item a post whose release id is "missing" became',
      params: idParams,
      response: z.array(z.object({ id: z.string(), url: z.string() })),
      handle: async ({ organization, params }) => {
        const post = await findOwnedPost(deps.db, organization.id, params.id);
        if (post.releaseId !== missingReleaseId) throw new DomainError('not_missing', `post ${params.id} is not missing its release id`);
        const channel = await deps.db.channels.findById(post.channelId).lean();
        if (channel === null || !publishingProviders.has(channel.provider)) {
          throw new DomainError('not_implemented', `reading recent content from ${channel?.provider ?? 'this platform'} is not available yet`);
        }
        return deps.platformCaller.call({ kind: 'recent-content', organizationId: organization.id, channelId: channel._id.toString() });
      },
    }),
    defineRoute({
      method: 'put', path: '/posts/:id/release-id', tag: 'Posts',
      scope: 'posts', status: 200, errors: ['not_found', 'not_missing', 'validation_failed'],
      summary: 'Set the platform item of a post whose release id is "missing"',
      params: idParams,
      body: releaseIdBody,
      response: postDetailSchema,
      handle: async ({ organization, params, body }) =>
        detailed(await setReleaseId(deps, organization.id, params.id, body.releaseId)),
    }),
  ];
}
