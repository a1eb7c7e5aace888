/**
 * What one simulated Lemmy 0.19 instance holds, and the views its API answers with (lemmy-js-client
 * 0.19.9 types: PostView, CommentView, CommunityView, PersonView), with every field those types
 * mark as always sent (operations.json holds the answers to them). Lemmy skips an absent optional
 * field rather than sending null, and so do the views.
 */

export interface SimulatedLemmyUser {
  id: number;
  name: string;
  email: string;
  password: string;
  displayName?: string;
  avatar?: string;
  /** The code the account's authenticator shows now, for accounts with two-factor authentication. */
  totp?: string;
  /** Accounts awaiting approval sign in with no token (registration_application_is_pending in newer versions). */
  pending?: boolean;
}

export interface SimulatedCommunity {
  id: number;
  name: string;
  title: string;
  /** Another instance's community: the instance knows it only once someone resolved its address. */
  remoteHost?: string;
  known?: boolean;
  nsfw?: boolean;
  postingRestrictedToMods?: boolean;
  /** Language ids the community allows; every language when unset. */
  languages?: number[];
  moderators?: number[];
  banned?: number[];
  subscribers?: number[];
  deleted?: boolean;
}

export interface StoredPost {
  id: number;
  name: string;
  body: string | null;
  url: string | null;
  altText: string | null;
  customThumbnail: string | null;
  nsfw: boolean;
  languageId: number;
  communityId: number;
  creatorId: number;
  published: string;
  locked: boolean;
  upvotes: number;
  downvotes: number;
  /** Deleted by its creator (post/delete); shown as deleted, its content kept for a restore. */
  deleted?: boolean;
}

export interface StoredComment {
  id: number;
  postId: number;
  creatorId: number;
  content: string;
  path: string;
  languageId: number;
  published: string;
  upvotes: number;
  downvotes: number;
  /** Deleted by its creator (comment/delete). */
  deleted?: boolean;
}

export interface StoredImage {
  file: string;
  deleteToken: string;
  uploaderId: number;
  contentType: string;
  fileName: string;
  bytes: Buffer;
}

/** Lemmy's timestamps: RFC 3339 with microseconds, in UTC. */
export const lemmyTime = (at: Date = new Date()): string => `${at.toISOString().slice(0, 23)}000Z`;

/** Lemmy's `instance` rows: the instance itself, and the one every remote community lives on here. */
const localInstance = 1;
const remoteInstance = 2;

export class LemmyState {
  origin = '';
  /** When the instance, its people and its communities came to be, as their `published` says. */
  readonly startedAt = lemmyTime();
  readonly users: SimulatedLemmyUser[] = [];
  readonly sessions = new Map<string, SimulatedLemmyUser>();
  readonly communities: SimulatedCommunity[] = [];
  readonly posts: StoredPost[] = [];
  readonly comments: StoredComment[] = [];
  readonly images: StoredImage[] = [];
  /**
   * The admins' slur filter (`local_site.slur_filter_regex`): a title matching it is refused, a
   * body or comment has each match replaced by `*removed*`.
   */
  slurFilter: RegExp | null = null;
  #nextId = 100;

  withoutSlurs(text: string): string {
    return this.slurFilter === null ? text : text.replace(new RegExp(this.slurFilter.source, 'gi'), '*removed*');
  }

  nextId(): number {
    this.#nextId += 1;
    return this.#nextId;
  }

  get host(): string {
    return new URL(this.origin).host;
  }

  user(id: number): SimulatedLemmyUser | undefined {
    return this.users.find((user) => user.id === id);
  }

  person(user: SimulatedLemmyUser) {
    return {
      id: user.id,
      name: user.name,
      ...(user.displayName === undefined ? {} : { display_name: user.displayName }),
      ...(user.avatar === undefined ? {} : { avatar: user.avatar }),
      banned: false,
      published: this.startedAt,
      actor_id: `${this.origin}/u/${user.name}`,
      local: true,
      deleted: false,
      bot_account: false,
      instance_id: localInstance,
    };
  }

  personView(user: SimulatedLemmyUser) {
    const counts = {
      person_id: user.id,
      post_count: this.posts.filter((post) => post.creatorId === user.id).length,
      comment_count: this.comments.filter((comment) => comment.creatorId === user.id).length,
    };
    return { person: this.person(user), counts, is_admin: false };
  }

  community(community: SimulatedCommunity) {
    const host = community.remoteHost ?? this.host;
    const scheme = community.remoteHost === undefined ? new URL(this.origin).protocol : 'https:';
    return {
      id: community.id,
      name: community.name,
      title: community.title,
      removed: false,
      published: this.startedAt,
      deleted: community.deleted ?? false,
      nsfw: community.nsfw ?? false,
      actor_id: `${scheme}//${host}/c/${community.name}`,
      local: community.remoteHost === undefined,
      hidden: false,
      posting_restricted_to_mods: community.postingRestrictedToMods ?? false,
      instance_id: community.remoteHost === undefined ? localInstance : remoteInstance,
      visibility: 'Public',
    };
  }

  #subscribed(community: SimulatedCommunity, viewerId: number | null): string {
    return viewerId !== null && (community.subscribers ?? []).includes(viewerId) ? 'Subscribed' : 'NotSubscribed';
  }

  communityView(community: SimulatedCommunity, viewerId: number | null) {
    const subscribers = community.subscribers ?? [];
    const postIds = new Set(this.posts.filter((post) => post.communityId === community.id).map((post) => post.id));
    const comments = this.comments.filter((comment) => postIds.has(comment.postId)).length;
    // Activity counts are Lemmy's scheduled tasks' sums; the simulator runs none, so they stay 0.
    const counts = {
      community_id: community.id, subscribers: subscribers.length, posts: postIds.size, comments,
      published: this.startedAt, users_active_day: 0, users_active_week: 0, users_active_month: 0,
      users_active_half_year: 0, subscribers_local: subscribers.length,
    };
    return {
      community: this.community(community),
      subscribed: this.#subscribed(community, viewerId),
      blocked: false,
      counts,
      banned_from_community: viewerId !== null && (community.banned ?? []).includes(viewerId),
    };
  }

  /** The post's creator and community, which a real instance always has. */
  #parties(creatorId: number, communityId: number): { creator: SimulatedLemmyUser; community: SimulatedCommunity } {
    const creator = this.user(creatorId);
    const community = this.communities.find((candidate) => candidate.id === communityId);
    if (creator === undefined || community === undefined) {
      throw new Error(`the simulated instance lost person ${String(creatorId)} or community ${String(communityId)}`);
    }
    return { creator, community };
  }

  /** How the creator stands in the community, and how the viewer does, as each view repeats it. */
  #standing(creator: SimulatedLemmyUser, community: SimulatedCommunity, viewerId: number | null) {
    const banned = community.banned ?? [];
    return {
      creator_banned_from_community: banned.includes(creator.id),
      banned_from_community: viewerId !== null && banned.includes(viewerId),
      creator_is_moderator: (community.moderators ?? []).includes(creator.id),
      creator_is_admin: false,
      subscribed: this.#subscribed(community, viewerId),
      saved: false,
      creator_blocked: false,
    };
  }

  post(post: StoredPost) {
    return {
      id: post.id,
      name: post.name,
      ...(post.url === null ? {} : { url: post.url }),
      ...(post.body === null ? {} : { body: post.body }),
      creator_id: post.creatorId,
      community_id: post.communityId,
      removed: false,
      locked: post.locked,
      published: post.published,
      deleted: post.deleted === true,
      nsfw: post.nsfw,
      ...(post.customThumbnail === null ? {} : { thumbnail_url: post.customThumbnail }),
      ap_id: `${this.origin}/post/${String(post.id)}`,
      local: true,
      language_id: post.languageId,
      featured_community: false,
      featured_local: false,
      ...(post.altText === null ? {} : { alt_text: post.altText }),
    };
  }

  postView(post: StoredPost, viewerId: number | null = null) {
    const { creator, community } = this.#parties(post.creatorId, post.communityId);
    const comments = this.comments.filter((comment) => comment.postId === post.id);
    return {
      post: this.post(post),
      creator: this.person(creator),
      community: this.community(community),
      ...this.#standing(creator, community, viewerId),
      counts: {
        post_id: post.id,
        comments: comments.length,
        score: post.upvotes - post.downvotes,
        upvotes: post.upvotes,
        downvotes: post.downvotes,
        published: post.published,
        newest_comment_time: comments.at(-1)?.published ?? post.published,
      },
      read: false,
      hidden: false,
      unread_comments: comments.length,
    };
  }

  commentView(comment: StoredComment, viewerId: number | null = null) {
    const post = this.posts.find((candidate) => candidate.id === comment.postId);
    if (post === undefined) throw new Error(`the simulated instance lost post ${String(comment.postId)}`);
    const { creator, community } = this.#parties(comment.creatorId, post.communityId);
    const prefix = `${comment.path}.`;
    return {
      comment: {
        id: comment.id,
        creator_id: comment.creatorId,
        post_id: comment.postId,
        content: comment.content,
        removed: false,
        published: comment.published,
        deleted: comment.deleted === true,
        ap_id: `${this.origin}/comment/${String(comment.id)}`,
        local: true,
        path: comment.path,
        distinguished: false,
        language_id: comment.languageId,
      },
      creator: this.person(creator),
      post: this.post(post),
      community: this.community(community),
      counts: {
        comment_id: comment.id,
        score: comment.upvotes - comment.downvotes,
        upvotes: comment.upvotes,
        downvotes: comment.downvotes,
        published: comment.published,
        child_count: this.comments.filter((other) => other.path.startsWith(prefix)).length,
      },
      ...this.#standing(creator, community, viewerId),
    };
  }
}
