/**
 * What one simulated Lemmy 0.19 instance holds, and the views its API answers with (lemmy-js-client
 * types: PostView, CommentView, CommunityView, PersonView), trimmed to the fields a client reads.
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

export class LemmyState {
  origin = '';
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
      actor_id: `${this.origin}/u/${user.name}`,
      local: true,
      banned: false,
      deleted: false,
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
      actor_id: `${scheme}//${host}/c/${community.name}`,
      local: community.remoteHost === undefined,
      nsfw: community.nsfw ?? false,
      posting_restricted_to_mods: community.postingRestrictedToMods ?? false,
      removed: false,
      deleted: community.deleted ?? false,
      hidden: false,
    };
  }

  communityView(community: SimulatedCommunity, viewerId: number | null) {
    const subscribers = community.subscribers ?? [];
    const subscribed = viewerId !== null && subscribers.includes(viewerId) ? 'Subscribed' : 'NotSubscribed';
    const posts = this.posts.filter((post) => post.communityId === community.id).length;
    return {
      community: this.community(community),
      subscribed,
      blocked: false,
      counts: { community_id: community.id, subscribers: subscribers.length, posts, comments: 0 },
      banned_from_community: viewerId !== null && (community.banned ?? []).includes(viewerId),
    };
  }

  postView(post: StoredPost) {
    const creator = this.user(post.creatorId);
    const community = this.communities.find((candidate) => candidate.id === post.communityId);
    return {
      post: {
        id: post.id,
        name: post.name,
        ...(post.url === null ? {} : { url: post.url }),
        ...(post.body === null ? {} : { body: post.body }),
        ...(post.altText === null ? {} : { alt_text: post.altText }),
        ...(post.customThumbnail === null ? {} : { thumbnail_url: post.customThumbnail }),
        creator_id: post.creatorId,
        community_id: post.communityId,
        removed: false,
        locked: post.locked,
        published: post.published,
        deleted: false,
        nsfw: post.nsfw,
        ap_id: `${this.origin}/post/${String(post.id)}`,
        local: true,
        language_id: post.languageId,
      },
      creator: creator === undefined ? null : this.person(creator),
      community: community === undefined ? null : this.community(community),
      counts: {
        post_id: post.id,
        comments: this.comments.filter((comment) => comment.postId === post.id).length,
        score: post.upvotes - post.downvotes,
        upvotes: post.upvotes,
        downvotes: post.downvotes,
        published: post.published,
      },
    };
  }

  commentView(comment: StoredComment) {
    const creator = this.user(comment.creatorId);
    const post = this.posts.find((candidate) => candidate.id === comment.postId);
    const prefix = `${comment.path}.`;
    return {
      comment: {
        id: comment.id,
        creator_id: comment.creatorId,
        post_id: comment.postId,
        content: comment.content,
        removed: false,
        published: comment.published,
        deleted: false,
        ap_id: `${this.origin}/comment/${String(comment.id)}`,
        local: true,
        path: comment.path,
        distinguished: false,
        language_id: comment.languageId,
      },
      creator: creator === undefined ? null : this.person(creator),
      post: post === undefined ? null : this.postView(post).post,
      counts: {
        comment_id: comment.id,
        score: comment.upvotes - comment.downvotes,
        upvotes: comment.upvotes,
        downvotes: comment.downvotes,
        published: comment.published,
        child_count: this.comments.filter((other) => other.path.startsWith(prefix)).length,
      },
    };
  }
}
