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
    // Recurring posts are not offered; the field stays for clients that read it.
    intervalInDays: null,
    settings: { ...stored, __type: stored.__type ?? channel?.provider },
    tags: post.tags.map((tag) => ({ value: tag.value, label: tag.label })),
    error: post.error ?? null,
    integration: integrationRef(channel, post.channelId.toString()),
  };
}

export function presentPost({ root, parts, channel }: PostWithThread) {
  return {
    ...presentListedPost(root, channel),
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
    })),
  };
}
