import { z } from 'zod';
import type {
  AdapterOptions,
  ChannelCredentials,
  CommentInput,
  PlatformAdapter,
  PublishInput,
  PublishResult,
  RemovalTarget,
} from '../kit/platform-adapter.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { unreadableAnswer } from '../kit/unreadable-answer.ts';
import { blueskySettings } from './definition.ts';
import { mediaEmbed } from './embeds.ts';
import { detectFacets, type ResolveHandle } from './facets.ts';
import { parsePostUri, postUrl, type StrongRef } from './post-ref.ts';
import { partRecordKey, tidPattern } from './record-key.ts';
import { channelServer, openSession, type BlueskySession } from './session.ts';
import { provider, refusalName, xrpc, type XrpcServer } from './xrpc.ts';
import { trailingSlashes } from '../../net/trailing-slashes.ts';

const postCollection = 'app.bsky.feed.post';

/** Where the channels without a PDS of their own answer: `BLUESKY_API_URL`, https://bsky.social by default. */
export interface BlueskyEndpoint {
  apiUrl: string;
}

const strongRef = z.object({ uri: z.string().startsWith('at://'), cid: z.string().min(1) });

const storedPost = z.object({
  uri: z.string().startsWith('at://'),
  cid: z.string().min(1),
  value: z.object({
    text: z.string(),
    reply: z.object({ root: strongRef, parent: strongRef }).optional(),
  }),
});
type StoredPost = z.infer<typeof storedPost>;

const listedPosts = z.object({ records: z.array(z.object({ uri: z.string().startsWith('at://') })) });
const resolved = z.object({ did: z.string().startsWith('did:') });
const actors = z.object({
  actors: z.array(
    z.object({
      did: z.string(),
      handle: z.string(),
      displayName: z.string().optional(),
      avatar: z.string().optional(),
    }),
  ),
});

const searchRequired = 'q (the search text) is required';
const searchData = z.object({ q: z.string({ error: searchRequired }).trim().min(1, searchRequired) });
const handleRequired = 'handle (like alice.bsky.social) is required';
const handleData = z.object({
  handle: z
    .string({ error: handleRequired })
    .trim()
    .transform((typed) => typed.replace(/^@/, ''))
    .pipe(z.string().min(1, handleRequired)),
});

function unreadable(what: string): PlatformError {
  return unreadableAnswer(provider, `Bluesky answered ${what} with a body`);
}

function invalidData(issues: z.ZodError): PlatformError {
  const message = issues.issues.map((issue) => issue.message).join('; ');
  return new PlatformError({ kind: 'permanent', provider, message });
}

/**
 * Publishes app.bsky.feed.post records to the channel's PDS (shared/platforms/open-and-community.md,
 * section 1): facets for links, mentions and hashtags, images or one MP4 as blobs, thread parts as
 * replies carrying the thread's root and their parent. The release id is the post's at:// URI;
 * a reply reads its parent's record to learn its CID and the thread's root.
 *
 * Exactly once: the PDS has no idempotency key, but the record key is chosen by SPS
 * (record-key.ts): a TID derived from the part's idempotency key and due time, the same on every
 * attempt, and saved in the part's checkpoint before createRecord. A repository holds one record
 * per key, so a retry after a crash, or after an answer lost on the way back, cannot make a
 * second post: an attempt that finds the key in its checkpoint first reads the record at that key
 * (getRecord) and, if it is there with the part's text, takes it as published; a createRecord that
 * fails for a reason that may hide a write (the reference PDS answers a taken key with HTTP 500,
 * a lost answer is a network error) is followed by the same read before the failure is passed on.
 * Nothing that can fail runs between the PDS's accept and the result (the handle for the URL
 * is read first), so 'unconfirmed' is never needed.
 */
export function createBlueskyAdapter(options: AdapterOptions, endpoint: BlueskyEndpoint): PlatformAdapter {
  const entryway = endpoint.apiUrl.replace(trailingSlashes, '');
  const { timeoutMs } = options;

  function server(channel: ChannelCredentials): XrpcServer {
    return channelServer(channel, entryway, options.userHosts);
  }

  function session(channel: ChannelCredentials): Promise<BlueskySession> {
    return openSession(server(channel), channel.accessToken, timeoutMs);
  }

  /** The post at `rkey` in the account's repository, or null when there is none. */
  async function readPost(account: BlueskySession, repo: string, rkey: string): Promise<StoredPost | null> {
    let answer: unknown;
    try {
      answer = await account.call({
        method: 'GET',
        nsid: 'com.atproto.repo.getRecord',
        query: { repo, collection: postCollection, rkey },
      });
    } catch (error) {
      if (refusalName(error) === 'RecordNotFound') return null;
      throw error;
    }
    const post = storedPost.safeParse(answer);
    if (!post.success) throw unreadable('getRecord');
    return post.data;
  }

  /** A record at our key is this part only if it says the same; anything else is a key collision. */
  function ours(found: StoredPost, text: string, account: BlueskySession, rkey: string): PublishResult {
    if (found.value.text !== text) {
      const message = `the record key ${rkey} already holds another post on this account; SPS did not overwrite it`;
      throw new PlatformError({ kind: 'permanent', provider, message });
    }
    return { releaseId: found.uri, releaseURL: postUrl(account.handle, rkey) };
  }

  const resolveHandle =
    (account: BlueskySession): ResolveHandle =>
    async (handle) => {
      try {
        const answer = resolved.safeParse(
          await account.call({
            method: 'GET',
            nsid: 'com.atproto.identity.resolveHandle',
            query: { handle },
          }),
        );
        return answer.success ? answer.data.did : null;
      } catch (error) {
        // No account has the handle (HandleNotFound, or InvalidRequest "Unable to resolve handle"): plain text.
        if (error instanceof PlatformError && error.httpStatus === 400 && error.kind === 'permanent') return null;
        throw error;
      }
    };

  async function post(
    input: PublishInput,
    reply: { root: StrongRef; parent: StrongRef } | null,
    account: BlueskySession,
  ) {
    const settings = blueskySettings.parse(input.settings);
    const saved = input.checkpoint.values.rkey;
    const rkey =
      saved !== undefined && tidPattern.test(saved)
        ? saved
        : partRecordKey(input.idempotencyKey, input.dueAt ?? new Date());
    if (saved === rkey) {
      // An earlier attempt got as far as createRecord: it may have written the post.
      const found = await readPost(account, account.did, rkey);
      if (found !== null) return ours(found, input.content, account, rkey);
    }

    const facets = await detectFacets(input.content, resolveHandle(account));
    const embed = await mediaEmbed(account, input.media, timeoutMs);
    const record = {
      $type: postCollection,
      text: input.content,
      createdAt: new Date().toISOString(),
      ...(facets.length === 0 ? {} : { facets }),
      ...(embed === undefined ? {} : { embed }),
      ...(reply === null ? {} : { reply }),
      ...(settings.langs === undefined ? {} : { langs: settings.langs }),
      ...(settings.tags === undefined ? {} : { tags: settings.tags }),
    };
    await input.checkpoint.save({ rkey });
    let created: unknown;
    try {
      created = await account.call({
        method: 'POST',
        nsid: 'com.atproto.repo.createRecord',
        json: { repo: account.did, collection: postCollection, rkey, record },
      });
    } catch (error) {
      if (!(error instanceof PlatformError) || error.kind !== 'retryable') throw error;
      const found = await readPost(account, account.did, rkey).catch(() => null);
      if (found === null) throw error;
      return ours(found, input.content, account, rkey);
    }
    const answer = strongRef.safeParse(created);
    if (!answer.success) throw unreadable('createRecord');
    return { releaseId: answer.data.uri, releaseURL: postUrl(account.handle, rkey) };
  }

  /** The parent's strong ref and the thread's root: the parent's own root when it is a reply itself. */
  async function replyRefs(account: BlueskySession, parentReleaseId: string) {
    const where = parsePostUri(parentReleaseId);
    const parent = await readPost(account, where.repo, where.rkey);
    if (parent === null) {
      const message = `the post this part answers (${parentReleaseId}) is no longer on Bluesky`;
      throw new PlatformError({ kind: 'permanent', provider, message });
    }
    const parentRef = { uri: parent.uri, cid: parent.cid };
    return { root: parent.value.reply?.root ?? parentRef, parent: parentRef };
  }

  return {
    provider,

    async publish(input: PublishInput): Promise<PublishResult> {
      return post(input, null, await session(input.channel));
    },

    async comment(input: CommentInput): Promise<PublishResult> {
      const account = await session(input.channel);
      return post(input, await replyRefs(account, input.parentReleaseId), account);
    },

    /**
     * com.atproto.repo.deleteRecord of the post in the account's own repository. A PDS answers a
     * record already gone with success too (nothing to commit), so a repeat is harmless.
     */
    async remove(channel: ChannelCredentials, { releaseId }: RemovalTarget) {
      const where = parsePostUri(releaseId);
      const account = await session(channel);
      if (where.repo !== account.did) {
        const message = `${releaseId} is not in this account's repository (${account.did}); SPS cannot delete it`;
        throw new PlatformError({ kind: 'permanent', provider, message });
      }
      await account.call({
        method: 'POST',
        nsid: 'com.atproto.repo.deleteRecord',
        json: { repo: account.did, collection: postCollection, rkey: where.rkey },
      });
    },

    async recentContent(channel: ChannelCredentials) {
      const account = await session(channel);
      const listed = listedPosts.safeParse(
        await account.call({
          method: 'GET',
          nsid: 'com.atproto.repo.listRecords',
          query: { repo: account.did, collection: postCollection, limit: '25' },
        }),
      );
      if (!listed.success) throw unreadable('listRecords');
      return listed.data.records.map((item) => ({
        id: item.uri,
        url: postUrl(account.handle, parsePostUri(item.uri).rkey),
      }));
    },

    tools: {
      async searchActors(channel, data) {
        const wanted = searchData.safeParse(data);
        if (!wanted.success) throw invalidData(wanted.error);
        const account = await session(channel);
        // An app.bsky read: the PDS passes it on to the AppView.
        const found = actors.safeParse(
          await account.call({
            method: 'GET',
            nsid: 'app.bsky.actor.searchActors',
            query: { q: wanted.data.q, limit: '25' },
          }),
        );
        if (!found.success) throw unreadable('searchActors');
        return found.data.actors.map((actor) => ({
          did: actor.did,
          handle: actor.handle,
          displayName: actor.displayName ?? null,
          avatar: actor.avatar ?? null,
        }));
      },

      async resolveHandle(channel, data) {
        const wanted = handleData.safeParse(data);
        if (!wanted.success) throw invalidData(wanted.error);
        const answer = resolved.safeParse(
          await xrpc(server(channel), {
            method: 'GET',
            nsid: 'com.atproto.identity.resolveHandle',
            query: { handle: wanted.data.handle },
            timeoutMs,
          }),
        );
        if (!answer.success) throw unreadable('resolveHandle');
        return { handle: wanted.data.handle, did: answer.data.did };
      },
    },
  };
}
