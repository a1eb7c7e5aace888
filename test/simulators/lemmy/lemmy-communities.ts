import type { SimulatedAnswer, SimulatedRequest } from '../kit/simulator-server.ts';
import { lemmyError, signedIn, viewer } from './lemmy-requests.ts';
import type { LemmyState, SimulatedCommunity } from './lemmy-state.ts';

/**
 * Finding communities (open-and-community.md 7.8): `GET /api/v3/search?type_=Communities`,
 * `GET /api/v3/community/list?type_=Subscribed|Local|All` and `GET /api/v3/resolve_object?q=!name@host`.
 * A remote community is invisible to the first two until someone resolved its address.
 */

const listingTypes = ['All', 'Local', 'Subscribed', 'ModeratorView'];

const byActivity = (state: LemmyState, viewerId: number | null, communities: SimulatedCommunity[]) =>
  [...communities]
    .sort((one, other) => (other.subscribers ?? []).length - (one.subscribers ?? []).length)
    .map((community) => state.communityView(community, viewerId));

export function searchCommunities(state: LemmyState, request: SimulatedRequest): SimulatedAnswer {
  const seen = viewer(state, request);
  if ('refusal' in seen) return seen.refusal;
  const q = request.query.get('q');
  if (q === null) return { status: 400, body: 'Query deserialize error: missing field `q`' };
  const type = request.query.get('type_') ?? 'All';
  const wanted = q.toLowerCase();
  const matches = type === 'Communities' || type === 'All'
    ? state.communities.filter((community) => community.known !== false
      && (community.name.toLowerCase().includes(wanted) || community.title.toLowerCase().includes(wanted)))
    : [];
  const communities = byActivity(state, seen.user?.id ?? null, matches);
  return { status: 200, body: { type_: type, comments: [], posts: [], communities, users: [] } };
}

export function listCommunities(state: LemmyState, request: SimulatedRequest): SimulatedAnswer {
  const seen = viewer(state, request);
  if ('refusal' in seen) return seen.refusal;
  const type = request.query.get('type_') ?? 'Local';
  if (!listingTypes.includes(type)) {
    return { status: 400, body: `Query deserialize error: unknown variant \`${type}\`` };
  }
  const userId = seen.user?.id ?? null;
  if (type === 'Subscribed' && userId === null) return lemmyError(400, 'not_logged_in');
  const known = state.communities.filter((community) => community.known !== false);
  const listed = known.filter((community) => {
    if (type === 'Local') return community.remoteHost === undefined;
    if (type === 'Subscribed') return (community.subscribers ?? []).includes(userId ?? -1);
    if (type === 'ModeratorView') return (community.moderators ?? []).includes(userId ?? -1);
    return true;
  });
  return { status: 200, body: { communities: byActivity(state, userId, listed) } };
}

export function resolveObject(state: LemmyState, request: SimulatedRequest): SimulatedAnswer {
  const session = signedIn(state, request);
  if ('refusal' in session) return session.refusal;
  const q = request.query.get('q') ?? '';
  const address = /^!([^@\s]+)@([^@\s]+)$/.exec(q);
  const community = address === null ? undefined : state.communities.find((candidate) =>
    candidate.name === address[1] && (candidate.remoteHost ?? state.host) === address[2]);
  if (community === undefined) return lemmyError(400, 'couldnt_find_object');
  // Resolving fetches the community over federation: from now on the instance knows it.
  community.known = true;
  return { status: 200, body: { community: state.communityView(community, session.user.id) } };
}
