import { postRemovalView } from '../../../shared/domain/removal/removal-view.ts';
import type { ListedChannel, PostWithThread, StoredPost } from '../../../shared/domain/posts/post-queries.ts';

function integrationRef(channel: ListedChannel | null | undefined, channelId: string) {
  return {
    id: channelId,
    providerIdentifier: channel?.provider ?? 'unknown',
    name: channel?.name ?? '(removed channel)',
    picture: channel?.picture ?? null,
  };
}

export function presentListedPost(post: StoredPost, channel: ListedChannel | null | undefined) {
  const stored = (post.settings ?? {}) as Record<string, unknown>;
  return {
    id: post._id.toString(),
    content: post.content,
    publishDate: post.publishDate.toISOString(),
    state: post.state,
    releaseId: post.releaseId ?? null,
    releaseURL: post.releaseURL ?? null,
    group: post.group,
    intervalInDays: post.repeat?.intervalInDays ?? null,
    repeat: typeof post.repeat?.rule === 'string'
      ? { rule: post.repeat.rule, until: post.repeat.until?.toISOString() ?? null, count: post.repeat.count ?? null }
      : null,
    seriesId: post.seriesId ?? null,
    occurrence: post.occurrence ?? null,
    settings: { ...stored, __type: stored.__type ?? channel?.provider },
    tags: post.tags.map((tag) => ({ value: tag.value, label: tag.label })),
    error: post.error ?? null,
    errorCategory: post.failureCategory ?? null,
    integration: integrationRef(channel, post.channelId.toString()),
  };
}

export function presentPost({ root, parts, channel }: PostWithThread) {
  return {
    ...presentListedPost(root, channel),
    deletedAt: root.deletedAt?.toISOString() ?? null,
    removal: postRemovalView(root, channel?.provider ?? 'unknown', parts),
    value: parts.map((part) => ({
      id: part._id.toString(),
      content: part.content,
      image: part.media.map((media) => ({ id: media.id, path: media.path, alt: media.alt ?? null, thumbnail: media.thumbnail ?? null })),
      delay: part.delayMinutes,
      state: part.state,
      releaseId: part.releaseId ?? null,
      releaseURL: part.releaseURL ?? null,
      publishedAt: part.publishedAt?.toISOString() ?? null,
      error: part.error ?? null,
      errorCategory: part.failureCategory ?? null,
      attempts: part.attempts.map((attempt) => ({
        at: attempt.at.toISOString(), category: attempt.category, message: attempt.message,
        httpStatus: attempt.httpStatus ?? null,
      })),
    })),
  };
}
