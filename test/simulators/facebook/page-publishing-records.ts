import type { SimulatedAnswer } from '../kit/simulator-server.ts';
import type { UploadedFile } from './graph-form.ts';

/*
 * What the simulated Graph keeps of a Page's publishing: posts, photos, videos and comments, and
 * the steps a test injects (page-publishing-simulation.ts serves them).
 */

export interface SimulatedPost {
  /** `{page-id}_{post-id}`, as Graph names Page posts. */
  id: string;
  pageId: string;
  message: string;
  link: string | null;
  /** Photos shown in the post: one published photo, or the unpublished ones attached to /feed. */
  photoIds: string[];
  videoId: string | null;
  createdAt: number;
  reactions: number;
  shares: number;
  mediaViews: number;
  uniqueMediaViews: number;
}

export interface SimulatedPhoto {
  id: string;
  pageId: string;
  file: UploadedFile;
  published: boolean;
  alt: string | null;
  /** The post or comment that shows it; an unpublished photo is used once. */
  usedBy: string | null;
}

export interface SimulatedVideo {
  id: string;
  pageId: string;
  postId: string;
  file: UploadedFile;
  title: string | null;
  description: string;
  createdAt: number;
}

export interface SimulatedComment {
  id: string;
  /** The post or video commented on. */
  objectId: string;
  pageId: string;
  message: string;
  photoId: string | null;
  createdAt: number;
}

/** An injected answer for the next publishing POST, `pass` to let one through, or `lose`. */
export type PublishingStep = SimulatedAnswer | 'pass' | { lose: true };
