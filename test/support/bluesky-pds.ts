import { createHmac } from 'node:crypto';
import { z } from 'zod';
import { startBlueskyPds, type RunningBlueskyPds } from '../../scripts/local/bluesky-pds.ts';

/** An account on the test PDS, with an app password made for SPS the way a user makes one. */
export interface PdsAccount {
  did: string;
  handle: string;
  /** The account's own password (for managing app passwords), never given to SPS. */
  password: string;
  appPassword: string;
  appPasswordName: string;
  /** A session of the account itself, for reads and settings in tests. */
  accessJwt: string;
}

export interface PostRecord {
  uri: string;
  cid: string;
  value: Record<string, unknown> & { text: string };
}

export interface TestBlueskyPds {
  url: string;
  /** Milliseconds from spawning the PDS to its first answer. */
  startedInMs: number;
  createAccount(name: string): Promise<PdsAccount>;
  /** Settings > App passwords > Delete: sessions made with it can no longer be renewed. */
  revokeAppPassword(account: PdsAccount): Promise<void>;
  /** A moderator's takedown: the PDS refuses the account's tokens (AccountTakedown). */
  takedown(account: PdsAccount): Promise<void>;
  /** Saves the account's profile record (display name, and an avatar uploaded as a blob). */
  setProfile(account: PdsAccount, displayName: string, avatar: Buffer): Promise<{ avatarCid: string }>;
  /** Every app.bsky.feed.post record of the account, newest first, as listRecords gives them. */
  posts(account: PdsAccount): Promise<PostRecord[]>;
  /**
   * An access JWT of the account as the PDS issued it three hours ago, with its two-hour
   * lifetime over: the PDS answers ExpiredToken.
   */
  expiredAccessJwt(account: PdsAccount): string;
  /** The blob's bytes, as the PDS serves them. */
  blob(account: PdsAccount, cid: string): Promise<Buffer>;
  close(): Promise<void>;
}

const session = z.object({ did: z.string(), handle: z.string(), accessJwt: z.string() });
const appPassword = z.object({ password: z.string() });
const listed = z.object({
  records: z.array(z.object({ uri: z.string(), cid: z.string(), value: z.looseObject({ text: z.string() }) })),
  cursor: z.string().optional(),
});

const uploadedBlob = z.object({ blob: z.looseObject({ ref: z.object({ $link: z.string() }) }) });

const log = (line: string): void => {
  process.stderr.write(`[bluesky pds] ${line}\n`);
};

/**
 * The reference Bluesky PDS of one test file (scripts/local/bluesky-pds.ts; installed by the
 * global set-up), with the account chores the tests need, done over XRPC as a client would.
 */
export async function startTestBlueskyPds(): Promise<TestBlueskyPds> {
  const started = Date.now();
  const pds: RunningBlueskyPds = await startBlueskyPds(log);
  const startedInMs = Date.now() - started;

  async function call(
    nsid: string,
    init: { body?: unknown; query?: Record<string, string>; auth?: string },
  ): Promise<unknown> {
    const search = init.query === undefined ? '' : `?${new URLSearchParams(init.query).toString()}`;
    const response = await fetch(`${pds.url}/xrpc/${nsid}${search}`, {
      method: init.body === undefined ? 'GET' : 'POST',
      headers: {
        ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(init.auth === undefined ? {} : { authorization: init.auth }),
      },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${nsid} answered ${String(response.status)}: ${text}`);
    return text === '' ? null : (JSON.parse(text) as unknown);
  }

  return {
    url: pds.url,
    startedInMs,
    async createAccount(name) {
      const password = `${name}-password-1`;
      const created = session.parse(
        await call('com.atproto.server.createAccount', {
          body: { handle: `${name}.${pds.handleDomain}`, email: `${name}@example.org`, password },
        }),
      );
      const appPasswordName = 'SPS';
      const made = appPassword.parse(
        await call('com.atproto.server.createAppPassword', {
          body: { name: appPasswordName },
          auth: `Bearer ${created.accessJwt}`,
        }),
      );
      return { ...created, password, appPassword: made.password, appPasswordName };
    },
    async revokeAppPassword(account) {
      await call('com.atproto.server.revokeAppPassword', {
        body: { name: account.appPasswordName },
        auth: `Bearer ${account.accessJwt}`,
      });
    },
    async takedown(account) {
      const admin = `Basic ${Buffer.from(`admin:${pds.adminPassword}`).toString('base64')}`;
      await call('com.atproto.admin.updateSubjectStatus', {
        body: {
          subject: { $type: 'com.atproto.admin.defs#repoRef', did: account.did },
          takedown: { applied: true, ref: 'test' },
        },
        auth: admin,
      });
    },
    async setProfile(account, displayName, avatar) {
      const response = await fetch(`${pds.url}/xrpc/com.atproto.repo.uploadBlob`, {
        method: 'POST',
        headers: { 'content-type': 'image/png', authorization: `Bearer ${account.accessJwt}` },
        body: avatar,
      });
      const blob = uploadedBlob.parse(await response.json());
      await call('com.atproto.repo.putRecord', {
        body: {
          repo: account.did,
          collection: 'app.bsky.actor.profile',
          rkey: 'self',
          record: { $type: 'app.bsky.actor.profile', displayName, avatar: blob.blob },
        },
        auth: `Bearer ${account.accessJwt}`,
      });
      return { avatarCid: blob.blob.ref.$link };
    },
    async posts(account) {
      const page = listed.parse(
        await call('com.atproto.repo.listRecords', {
          query: { repo: account.did, collection: 'app.bsky.feed.post', limit: '100' },
        }),
      );
      return page.records;
    },
    expiredAccessJwt(account) {
      const encode = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
      const issuedAt = Math.floor(Date.now() / 1000) - 3 * 3600;
      const header = encode({ typ: 'at+jwt', alg: 'HS256' });
      const claims = encode({
        scope: 'com.atproto.appPass',
        aud: 'did:web:localhost',
        sub: account.did,
        iat: issuedAt,
        exp: issuedAt + 7200,
      });
      const signature = createHmac('sha256', pds.jwtSecret).update(`${header}.${claims}`).digest('base64url');
      return `${header}.${claims}.${signature}`;
    },
    async blob(account, cid) {
      const response = await fetch(
        `${pds.url}/xrpc/com.atproto.sync.getBlob?${new URLSearchParams({ did: account.did, cid }).toString()}`,
      );
      if (!response.ok) throw new Error(`getBlob answered ${String(response.status)}`);
      return Buffer.from(await response.arrayBuffer());
    },
    close: () => pds.stop(),
  };
}
