import { PlatformError } from '../kit/platform-error.ts';
import { provider } from './xrpc.ts';

/** A record named by URI and content hash, as replies point at the root and the parent. */
export interface StrongRef {
  uri: string;
  cid: string;
}

const postUriPattern = /^at:\/\/(did:[a-z]+:[a-zA-Z0-9._:%-]+)\/app\.bsky\.feed\.post\/([a-zA-Z0-9._:~-]{1,512})$/;

/** A post's release id is its at:// URI: `at://<did>/app.bsky.feed.post/<rkey>`. */
export function parsePostUri(uri: string): { repo: string; rkey: string } {
  const match = postUriPattern.exec(uri);
  if (match?.[1] === undefined || match[2] === undefined) {
    throw new PlatformError({ kind: 'permanent', provider, message: `${uri} is not the at:// URI of a Bluesky post` });
  }
  return { repo: match[1], rkey: match[2] };
}

/** The web app's address of a post; the handle reads better than the DID, and both work. */
export function postUrl(handle: string, rkey: string): string {
  return `https://bsky.app/profile/${encodeURIComponent(handle)}/post/${encodeURIComponent(rkey)}`;
}
