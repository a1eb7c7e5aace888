import { Types } from 'mongoose';
import type { ErrorCode } from '../../errors.ts';
import { checkPosts, type CheckPostsDeps } from './check-posts.ts';
import { channelPostIndexOf, partIndexOf } from './post-body-paths.ts';
import type { CreatePostsInput } from './post-input.ts';
import { shortenRequest } from '../short-links/shorten-links.ts';

/**
 * One thing POST /posts would refuse: the `code` it would answer with (its `error`) and, as
 * `path` and `message`, the entry of its `details` that names the problem.
 */
export interface PostProblem {
  /** `posts[].integration.id` as given, or null for a problem of the request as a whole (`date`). */
  channel: string | null;
  /** Index of the channel post in `posts[]`; null with `channel`. */
  post: number | null;
  /** Index of the part in the channel post's `value[]`, or null for the channel post as a whole. */
  part: number | null;
  path: string;
  code: ErrorCode;
  message: string;
}

export interface PostsValidation {
  valid: boolean;
  problems: PostProblem[];
}

/**
 * A dry run of POST /posts: every check it makes (checkPosts), all of them run, nothing stored,
 * imported or queued. Media given by URL count as imports still running, as POST /posts counts
 * them when the import outlasts its wait; the import itself (the address, the file) is judged only
 * when the post is created.
 */
export async function validatePosts(
  deps: CheckPostsDeps & { backendUrl?: string | undefined },
  organizationId: string,
  input: CreatePostsInput,
): Promise<PostsValidation> {
  // Shortened as POST /posts shortens (codes made, none stored), so text limits count the same.
  const shortened = shortenRequest(input, deps.backendUrl).input;
  const { failures } = await checkPosts(deps, new Types.ObjectId(organizationId), shortened, 'dry-run');
  const problems = failures.flatMap((failure) => {
    // Every check names its problems; a message alone still says what is wrong.
    const details = failure.details ?? [{ path: '', message: failure.message }];
    return details.map((detail): PostProblem => {
      const post = channelPostIndexOf(detail.path);
      const channel = post === null ? null : (input.posts[post]?.integration.id ?? null);
      return {
        channel,
        post: channel === null ? null : post,
        part: partIndexOf(detail.path),
        path: detail.path,
        code: failure.code,
        message: detail.message,
      };
    });
  });
  return { valid: problems.length === 0, problems };
}
