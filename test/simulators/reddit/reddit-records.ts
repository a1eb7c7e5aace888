/**
 * What the Reddit simulator holds: accounts, subreddits with their settings, the posts and
 * comments made, and the files stored through upload leases. Ids are base 36, as Reddit's are;
 * fullnames prefix them with the kind (`t3_` posts, `t1_` comments, `t5_` subreddits).
 */
export interface SimulatedRedditUser {
  id: string;
  name: string;
  /** As Reddit sends it: HTML-escaped, with a signed query. */
  icon_img: string;
  linkKarma?: number;
  commentKarma?: number;
}

export interface SimulatedFlair {
  id: string;
  text: string;
  textEditable?: boolean;
  modOnly?: boolean;
}

export interface SimulatedSubreddit {
  name: string;
  title?: string;
  description?: string;
  /** public, restricted (approved submitters only), private. */
  type?: 'public' | 'restricted' | 'private';
  /** any: links and text; link: no text posts; self: text posts only. */
  submissionType?: 'any' | 'link' | 'self';
  allowImages?: boolean;
  allowVideos?: boolean;
  allowGalleries?: boolean;
  over18?: boolean;
  subscribers?: number;
  flairRequired?: boolean;
  flairs?: SimulatedFlair[];
  rules?: { name: string; description: string; kind: 'link' | 'comment' | 'all' }[];
  titleMinLength?: number;
  /** Accounts (names) that subscribe, or may post to a private subreddit. */
  members?: string[];
}

export interface SimulatedPost {
  id: string;
  name: string;
  author: string;
  subreddit: string;
  kind: 'self' | 'link' | 'image' | 'video' | 'videogif' | 'gallery';
  title: string;
  text: string;
  /** The link, or the stored file's URL for image and video posts. */
  url: string | null;
  posterUrl: string | null;
  galleryAssets: string[];
  flairId: string | null;
  flairText: string | null;
  nsfw: boolean;
  spoiler: boolean;
  sendReplies: boolean;
  createdUtc: number;
  score: number;
  upvoteRatio: number;
  crossposts: number;
  /** Listing reads left before a media post is processed and shows among the author's posts. */
  readsUntilListed: number;
  /** Set by `POST /api/del`: Reddit keeps the post, read as `[deleted]` and out of the author's listing. */
  deleted?: boolean;
}

export interface SimulatedComment {
  id: string;
  name: string;
  author: string;
  /** Fullname of the post or comment answered. */
  parent: string;
  /** Fullname of the post the comment is under. */
  link: string;
  text: string;
  createdUtc: number;
  score: number;
  /** Set by `POST /api/del`: read as `[deleted]` and out of the author's listing. */
  deleted?: boolean;
}

export interface SimulatedAsset {
  id: string;
  key: string;
  fileName: string;
  mimeType: string;
  /** The form fields the lease handed out, which the storage POST must send back unchanged. */
  fields: { name: string; value: string }[];
  expiresAt: number;
  /** The file as the storage host received it; null until then. */
  bytes: Buffer | null;
}

export class RedditRecords {
  readonly users = new Map<string, SimulatedRedditUser>();
  readonly subreddits: SimulatedSubreddit[] = [];
  readonly posts: SimulatedPost[] = [];
  readonly comments: SimulatedComment[] = [];
  readonly assets: SimulatedAsset[] = [];
  #next = 0x1a2b3c;

  /** A fresh base-36 id, such as Reddit's `1h8xk2`. */
  newId(): string {
    this.#next += 1;
    return this.#next.toString(36);
  }

  subreddit(name: string): SimulatedSubreddit | undefined {
    return this.subreddits.find((item) => item.name.toLowerCase() === name.toLowerCase());
  }

  post(fullname: string): SimulatedPost | undefined {
    return this.posts.find((item) => item.name === fullname);
  }

  comment(fullname: string): SimulatedComment | undefined {
    return this.comments.find((item) => item.name === fullname);
  }

  commentsUnder(post: string): number {
    return this.comments.filter((item) => item.link === post).length;
  }

  /** `/r/<sr>/comments/<id>/<slug>/`, Reddit's permalink of a post. */
  permalink(post: SimulatedPost): string {
    const slug = post.title.toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_+|(?<!_)_+$/g, '').slice(0, 50);
    return `/r/${post.subreddit}/comments/${post.id}/${slug}/`;
  }

  commentPermalink(comment: SimulatedComment): string {
    const post = this.post(comment.link);
    return `${post === undefined ? '/' : this.permalink(post)}${comment.id}/`;
  }
}
