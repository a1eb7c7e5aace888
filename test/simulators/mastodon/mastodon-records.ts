import type { IncomingMessage } from 'node:http';
import type { RateLimits } from './mastodon-rate-limiter.ts';

// What the Mastodon simulator holds and what tests hand it: statuses, media, the requests it
// received, failures to inject, and how it listens.

export interface SimulatedStatus {
  id: string;
  url: string;
  uri: string;
  content: string;
  /** The raw `status` text as received. */
  text: string;
  mediaIds: string[];
  in_reply_to_id: string | null;
  visibility: string;
  spoiler_text: string;
  sensitive: boolean;
  language: string | null;
  created_at: string;
  accountId: string;
}

export interface SimulatedMedia {
  id: string;
  accountId: string;
  type: 'image' | 'video';
  /** As detected from the bytes, the way Mastodon decides. */
  mimeType: string;
  bytes: Buffer;
  description: string | null;
  /** Videos are "processed" after one poll, as real instances answer 202 then 206 then 200. */
  pollsUntilReady: number;
}

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: unknown;
}

export interface InjectedFailure {
  /** Omitted: after `delayMs` the call goes through normally (a slow platform, not a failing one). */
  status?: number;
  body?: unknown;
  /** Sent as given, and only these: a test that wants X-RateLimit-* headers says so. */
  headers?: Record<string, string>;
  /** Hold the connection this long before answering (to provoke client timeouts). */
  delayMs?: number;
  /** Create the status, then destroy the socket without answering: the client never learns it worked. */
  loseResponse?: boolean;
}

export interface SimulatorOptions {
  /** Loopback address to listen on; tests of DNS pinning use another one than 127.0.0.1. */
  host?: string;
  /** Default: any free port. */
  port?: number;
  rateLimits?: Partial<RateLimits>;
  /** Every POST /api/v1/statuses waits this long before it is handled (a platform's own time; benchmarks). */
  responseDelayMs?: number;
}
