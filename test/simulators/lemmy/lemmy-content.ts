import type { SimulatedAnswer, SimulatedRequest } from '../kit/simulator-server.ts';
import { codePoints, integerQuery, lemmyError, readJson, signedIn, viewer, type Fields } from './lemmy-requests.ts';
import { lemmyTime, type LemmyState, type SimulatedCommunity, type SimulatedLemmyUser } from './lemmy-state.ts';

/**
 * Posts and comments as Lemmy 0.19 makes and lists them (open-and-community.md 7.2, 7.4, 7.6, 7.7):
 * the checks of CreatePost / CreateComment in their order (fields, then the community's rules),
 * and the reads a client makes afterwards (GET /api/v3/post, /comment, /user).
 */

/** Lemmy's `FETCH_LIMIT_MAX`. */
const fetchLimitMax = 50;
/** The "undetermined" language every community allows. */
const undetermined = 0;

const isPostTitle = (name: string): boolean => {
  const length = codePoints(name.trim());
  return length >= 3 && length <= 200 && !/[\r\n]/.test(name);
};

const isHttpUrl = (value: string): boolean =>
  URL.canParse(value) && ['http:', 'https:'].includes(new URL(value).protocol) && value.length <= 2000;

/** The community rules a new post or comment meets, in Lemmy's order. */
function communityRefusal(
  community: SimulatedCommunity,
  user: SimulatedLemmyUser,
  languageId: number,
  creatingPost: boolean,
): SimulatedAnswer | null {
  if (community.deleted === true) return lemmyError(400, 'deleted');
  if ((community.banned ?? []).includes(user.id)) return lemmyError(400, 'banned_from_community');
  const moderator = (community.moderators ?? []).includes(user.id);
  if (creatingPost && community.postingRestrictedToMods === true && !moderator) {
    return lemmyError(400, 'only_mods_can_post_in_community');
  }
  const allowed = community.languages;
  if (languageId !== undetermined && allowed !== undefined && !allowed.includes(languageId)) {
    return lemmyError(400, 'language_not_allowed');
  }
  return null;
}

const optionalString = (fields: Fields, name: string): string | null =>
  typeof fields[name] === 'string' ? fields[name] : null;

export function createPost(state: LemmyState, request: SimulatedRequest): SimulatedAnswer {
  const session = signedIn(state, request);
  if ('refusal' in session) return session.refusal;
  const read = readJson(request, {
    name: 'string', community_id: 'integer', url: 'string', body: 'string', alt_text: 'string',
    nsfw: 'boolean', language_id: 'integer', custom_thumbnail: 'string', honeypot: 'string',
  }, ['name', 'community_id']);
  if ('refusal' in read) return read.refusal;
  const { fields } = read;
  if (fields.honeypot !== undefined && fields.honeypot !== null) return lemmyError(400, 'honeypot_failed');
  const name = String(fields.name);
  if (!isPostTitle(name)) return lemmyError(400, 'invalid_post_title');
  if (state.withoutSlurs(name) !== name) return lemmyError(400, 'slurs');
  const body = optionalString(fields, 'body');
  if (body !== null && codePoints(body) > 50_000) return lemmyError(400, 'invalid_body_field');
  const url = optionalString(fields, 'url');
  const thumbnail = optionalString(fields, 'custom_thumbnail');
  if ((url !== null && !isHttpUrl(url)) || (thumbnail !== null && !isHttpUrl(thumbnail))) {
    return lemmyError(400, 'invalid_url');
  }
  const altText = optionalString(fields, 'alt_text');
  if (altText !== null && codePoints(altText) > 1500) return lemmyError(400, 'alt_text_length_overflow');
  const community = state.communities.find((candidate) => candidate.id === fields.community_id);
  if (community === undefined || community.known === false) return lemmyError(404, 'couldnt_find_community');
  const languageId = typeof fields.language_id === 'number' ? fields.language_id : undetermined;
  const refusal = communityRefusal(community, session.user, languageId, true);
  if (refusal !== null) return refusal;

  const post = {
    id: state.nextId(), name, body: body === null ? null : state.withoutSlurs(body), url, altText,
    customThumbnail: thumbnail,
    nsfw: fields.nsfw === true, languageId, communityId: community.id, creatorId: session.user.id,
    published: lemmyTime(), locked: false, upvotes: 1, downvotes: 0,
  };
  state.posts.push(post);
  return { status: 200, body: { post_view: state.postView(post, session.user.id) } };
}

export function createComment(state: LemmyState, request: SimulatedRequest): SimulatedAnswer {
  const session = signedIn(state, request);
  if ('refusal' in session) return session.refusal;
  const read = readJson(request, {
    content: 'string', post_id: 'integer', parent_id: 'integer', language_id: 'integer', form_id: 'string',
  }, ['content', 'post_id']);
  if ('refusal' in read) return read.refusal;
  const { fields } = read;
  const content = String(fields.content);
  if (codePoints(content) > 10_000) return lemmyError(400, 'invalid_body_field');
  const post = state.posts.find((candidate) => candidate.id === fields.post_id);
  if (post === undefined) return lemmyError(404, 'couldnt_find_post');
  const community = state.communities.find((candidate) => candidate.id === post.communityId);
  if (community === undefined) return lemmyError(404, 'couldnt_find_community');
  const languageId = typeof fields.language_id === 'number' ? fields.language_id : undetermined;
  const refusal = communityRefusal(community, session.user, languageId, false);
  if (refusal !== null) return refusal;
  if (post.locked) return lemmyError(400, 'locked');
  let parentPath = '0';
  if (typeof fields.parent_id === 'number') {
    const parent = state.comments.find((candidate) => candidate.id === fields.parent_id);
    if (parent === undefined) return lemmyError(404, 'couldnt_find_comment');
    if (parent.postId !== post.id) return lemmyError(400, 'couldnt_create_comment');
    parentPath = parent.path;
  }

  const id = state.nextId();
  const comment = {
    id, postId: post.id, creatorId: session.user.id, content: state.withoutSlurs(content),
    path: `${parentPath}.${String(id)}`,
    languageId, published: lemmyTime(), upvotes: 1, downvotes: 0,
  };
  state.comments.push(comment);
  const formId = optionalString(fields, 'form_id');
  const answer = { comment_view: state.commentView(comment, session.user.id), recipient_ids: [] };
  return { status: 200, body: formId === null ? answer : { ...answer, form_id: formId } };
}

/**
 * POST /api/v3/post/delete and /comment/delete: the creator marks their own item deleted (or not,
 * `deleted: false` restores it); anyone else's is `no_post_edit_allowed` / `no_comment_edit_allowed`.
 */
export function deleteContent(state: LemmyState, request: SimulatedRequest, kind: 'post' | 'comment'): SimulatedAnswer {
  const session = signedIn(state, request);
  if ('refusal' in session) return session.refusal;
  const idField = kind === 'post' ? 'post_id' : 'comment_id';
  const read = readJson(request, { [idField]: 'integer', deleted: 'boolean' }, [idField, 'deleted']);
  if ('refusal' in read) return read.refusal;
  const id = read.fields[idField];
  const deleted = read.fields.deleted === true;
  if (kind === 'post') {
    const post = state.posts.find((candidate) => candidate.id === id);
    if (post === undefined) return lemmyError(404, 'couldnt_find_post');
    if (post.creatorId !== session.user.id) return lemmyError(400, 'no_post_edit_allowed');
    post.deleted = deleted;
    return { status: 200, body: { post_view: state.postView(post, session.user.id) } };
  }
  const comment = state.comments.find((candidate) => candidate.id === id);
  if (comment === undefined) return lemmyError(404, 'couldnt_find_comment');
  if (comment.creatorId !== session.user.id) return lemmyError(400, 'no_comment_edit_allowed');
  comment.deleted = deleted;
  return { status: 200, body: { comment_view: state.commentView(comment, session.user.id), recipient_ids: [] } };
}

export function getPost(state: LemmyState, request: SimulatedRequest): SimulatedAnswer {
  const seen = viewer(state, request);
  if ('refusal' in seen) return seen.refusal;
  const id = integerQuery(request, 'id');
  if (id === null || Number.isNaN(id)) return { status: 400, body: 'Query deserialize error: invalid value for `id`' };
  const post = state.posts.find((candidate) => candidate.id === id);
  if (post === undefined) return lemmyError(404, 'couldnt_find_post');
  const community = state.communities.find((candidate) => candidate.id === post.communityId);
  if (community === undefined) return lemmyError(404, 'couldnt_find_community');
  const viewerId = seen.user?.id ?? null;
  const body = {
    post_view: state.postView(post, viewerId),
    community_view: state.communityView(community, viewerId),
    moderators: [],
    cross_posts: [],
  };
  return { status: 200, body };
}

export function getComment(state: LemmyState, request: SimulatedRequest): SimulatedAnswer {
  const seen = viewer(state, request);
  if ('refusal' in seen) return seen.refusal;
  const id = integerQuery(request, 'id');
  if (id === null || Number.isNaN(id)) return { status: 400, body: 'Query deserialize error: invalid value for `id`' };
  const comment = state.comments.find((candidate) => candidate.id === id);
  if (comment === undefined) return lemmyError(404, 'couldnt_find_comment');
  return { status: 200, body: { comment_view: state.commentView(comment, seen.user?.id ?? null), recipient_ids: [] } };
}

/** `GET /api/v3/user`: a person's details and their posts and comments, newest first for sort=New. */
export function personDetails(state: LemmyState, request: SimulatedRequest): SimulatedAnswer {
  const seen = viewer(state, request);
  if ('refusal' in seen) return seen.refusal;
  const personId = integerQuery(request, 'person_id');
  const username = request.query.get('username');
  if (personId === null && username === null) return lemmyError(400, 'no_id_given');
  const user = personId === null
    ? state.users.find((candidate) => candidate.name === username?.replace(/@.*/, ''))
    : state.user(personId);
  if (user === undefined) return lemmyError(404, 'couldnt_find_person');
  const limit = integerQuery(request, 'limit') ?? 10;
  const page = integerQuery(request, 'page') ?? 1;
  if (Number.isNaN(limit) || limit < 1 || limit > fetchLimitMax || Number.isNaN(page)) {
    // 0.19 has no error type of its own for this: the database layer's refusal comes out as `unknown`.
    return { status: 400, body: { error: 'unknown', message: `Fetch limit is > ${String(fetchLimitMax)}` } };
  }
  const communityId = integerQuery(request, 'community_id');
  const sort = request.query.get('sort') ?? 'New';
  const order = <T extends { id: number }>(items: T[]): T[] =>
    [...items].sort((one, other) => (sort === 'Old' ? one.id - other.id : other.id - one.id));
  const window = <T>(items: T[]): T[] => items.slice((page - 1) * limit, page * limit);
  const posts = order(state.posts.filter((post) => post.creatorId === user.id
    && (communityId === null || post.communityId === communityId)));
  const postCommunity = (postId: number) => state.posts.find((post) => post.id === postId)?.communityId;
  const comments = order(state.comments.filter((comment) => comment.creatorId === user.id
    && (communityId === null || postCommunity(comment.postId) === communityId)));
  return {
    status: 200,
    body: {
      person_view: state.personView(user),
      comments: window(comments).map((comment) => state.commentView(comment, seen.user?.id ?? null)),
      posts: window(posts).map((post) => state.postView(post, seen.user?.id ?? null)),
      moderates: [],
    },
  };
}
