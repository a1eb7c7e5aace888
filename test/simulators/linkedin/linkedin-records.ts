import type { SimulatedAnswer } from '../kit/simulator-server.ts';

/** What the LinkedIn simulator keeps: posts, comments, uploaded assets, who calls. */
export interface SimulatedPost {
  id: string;
  author: string;
  commentary: string;
  /** What members see: the commentary unescaped, cut where an unescaped reserved character was. */
  shownText: string;
  visibility: string;
  isReshareDisabledByAuthor: boolean;
  content: { kind: 'image' | 'multiImage' | 'video' | 'document'; ids: string[]; altTexts: (string | null)[] } | null;
  createdAt: number;
}

export interface SimulatedComment {
  urn: string;
  actor: string;
  object: string;
  text: string;
  createdAt: number;
}

export interface SimulatedAsset {
  urn: string;
  kind: 'image' | 'video' | 'document';
  owner: string;
  status: 'WAITING_UPLOAD' | 'PROCESSING' | 'AVAILABLE' | 'PROCESSING_FAILED';
  /** Bytes received for an image or document, or the declared size of a video. */
  size: number;
  /** Video parts: each byte range, its upload key, and the ETag once uploaded. */
  parts: { firstByte: number; lastByte: number; key: string; etag: string | null }[];
  uploadToken: string;
  /** Status reads a processed video stays PROCESSING for. */
  processingReads: number;
  /** Whether a video's first part began like an MP4 (an ftyp box); processing fails otherwise. */
  looksLikeMp4: boolean;
}

/** The next create (post or comment) answers this instead, or is made and its answer lost. */
export type InjectedFailure = SimulatedAnswer | { loseResponse: true };

export interface ShareTotals {
  impressionCount: number;
  /** Members who saw the post at least once: LinkedIn always counts it beside the impressions. */
  uniqueImpressionsCount: number;
  clickCount: number;
  likeCount: number;
  commentCount: number;
  shareCount: number;
}

/** Who a request acts for: the member behind the token, its scopes and its Page roles. */
export interface Caller {
  sub: string;
  scopes: string[];
  /** Organization ids the member holds an approved role in, with the role. */
  roles: Map<number, string>;
}
