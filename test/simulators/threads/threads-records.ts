import type { SimulatedAnswer } from '../kit/simulator-server.ts';
import { graphTime } from '../facebook/meta-graph-simulation.ts';

/*
 * What the simulated graph.threads.net keeps: media containers, the threads published from them,
 * and how a test bends the next answers (threads-publishing-simulation.ts serves them).
 */

export type ContainerStatus = 'IN_PROGRESS' | 'FINISHED' | 'ERROR' | 'EXPIRED' | 'PUBLISHED';
type ContainerType = 'TEXT' | 'IMAGE' | 'VIDEO' | 'CAROUSEL';

export interface SimulatedContainer {
  id: string;
  owner: string;
  mediaType: ContainerType;
  text: string;
  imageUrl: string | null;
  videoUrl: string | null;
  altText: string | null;
  isCarouselItem: boolean;
  children: string[];
  replyToId: string | null;
  replyControl: string | null;
  topicTag: string | null;
  linkAttachment: string | null;
  quotePostId: string | null;
  status: ContainerStatus;
  errorMessage: string | null;
  /** Status reads still answered IN_PROGRESS before the outcome shows (videos being processed). */
  pollsInProgress: number;
  /** What the status becomes once processing ends. */
  outcome: { status: 'FINISHED' } | { status: 'ERROR'; errorMessage: string };
  createdAt: number;
  mediaId: string | null;
}

export interface SimulatedThread {
  id: string;
  owner: string;
  containerId: string;
  mediaType: 'TEXT_POST' | 'IMAGE' | 'VIDEO' | 'CAROUSEL_ALBUM';
  text: string;
  replyToId: string | null;
  rootId: string;
  replyControl: string | null;
  topicTag: string | null;
  linkAttachment: string | null;
  quotePostId: string | null;
  altTexts: (string | null)[];
  /** The media URLs the published item shows, in order (a carousel's children's). */
  mediaUrls: string[];
  shortcode: string;
  permalink: string;
  timestamp: number;
}

/** Answers a request differently from the platform's normal way, once. */
export type PublishingStep = SimulatedAnswer | { loseResponse: true };
export type PublishingEndpoint = 'threads' | 'threads_publish' | 'status';

export interface PublishingQuota {
  posts: number;
  replies: number;
  durationSeconds: number;
}

/** A published thread as Graph answers a read of it (fields then picked as asked). */
export function presentThread(thread: SimulatedThread, username: string): Record<string, unknown> {
  return {
    id: thread.id,
    media_product_type: 'THREADS',
    media_type: thread.mediaType,
    text: thread.text === '' ? undefined : thread.text,
    permalink: thread.permalink,
    shortcode: thread.shortcode,
    timestamp: graphTime(thread.timestamp),
    username,
    is_quote_post: thread.quotePostId !== null,
    is_reply: thread.replyToId !== null,
    replied_to: thread.replyToId === null ? undefined : { id: thread.replyToId },
    root_post: { id: thread.rootId },
    topic_tag: thread.topicTag ?? undefined,
  };
}
