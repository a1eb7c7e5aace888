// Fills a database the way months of use would (issue 17): organizations with an API key, one
// Mastodon channel each, a few ready media, posts spread over them and one notification per
// published post. `npm run bench:seed -- --posts 100000 --organizations 100` seeds the database
// MONGO_URL names (the embedded default when unset); scripts/bench/bench.ts calls the functions.
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { Types } from 'mongoose';
import { z } from 'zod';
import { SecretBox } from '../../shared/crypto/secret-box.ts';
import { openDatabase, type Database } from '../../shared/db/database.ts';
import type { PostState } from '../../shared/db/models/post.ts';
import { createOrganization } from '../../shared/domain/organizations/organizations.ts';
import { logToStderr, runScript } from '../local/run-script.ts';

export interface SeededOrganization {
  organizationId: Types.ObjectId;
  apiKey: string;
  channelId: Types.ObjectId;
  mediaIds: Types.ObjectId[];
}

export interface SeedReport {
  posts: number;
  notifications: number;
  seconds: number;
}

/** insertMany batch size: large enough to amortise a round trip, small enough for FerretDB's message limit. */
const batchSize = 1_000;
/** Batches written at once: FerretDB and PostgreSQL work on one while the next is being built and sent. */
const writesInFlight = 3;
const dayMs = 24 * 3600 * 1000;
/** QUEUE posts are due this far ahead, so no sweep or job ever publishes them during a benchmark. */
const farFutureMs = Date.UTC(2100, 0, 1);
const mediaKey = (id: Types.ObjectId): string => `seed/${id.toString()}.jpg`;
const mediaPath = (id: Types.ObjectId): string => `http://127.0.0.1/uploads/${mediaKey(id)}`;

/** Organizations named `Seed <n>`, each with one Mastodon channel on `instanceUrl` and a few ready images. */
export async function seedOrganizations(
  db: Database,
  secrets: SecretBox,
  options: { count: number; instanceUrl: string; mediaPerOrganization: number },
): Promise<SeededOrganization[]> {
  const organizations: SeededOrganization[] = [];
  for (let index = 0; index < options.count; index += 1) {
    const { organizationId, apiKey } = await createOrganization(db, secrets, { name: `Seed ${index + 1}` });
    organizations.push({
      organizationId: new Types.ObjectId(organizationId), apiKey, channelId: new Types.ObjectId(), mediaIds: [],
    });
  }
  await db.channels.insertMany(organizations.map((organization, index) => ({
    _id: organization.channelId,
    organizationId: organization.organizationId,
    provider: 'mastodon',
    name: `Seed channel ${index + 1}`,
    profile: `seed${index + 1}`,
    instanceUrl: options.instanceUrl,
    // A token no instance knows: seeded channels are never published to.
    tokenSealed: secrets.seal(randomBytes(16).toString('hex')),
  })));
  const media = organizations.flatMap((organization) =>
    Array.from({ length: options.mediaPerOrganization }, (_, index) => {
      const id = new Types.ObjectId();
      organization.mediaIds.push(id);
      return {
        _id: id, organizationId: organization.organizationId, name: `${id.toString()}.jpg`,
        originalName: `photo-${index + 1}.jpg`, storageKey: mediaKey(id), path: mediaPath(id),
        mimeType: 'image/jpeg', size: 150_000, width: 1200, height: 800, status: 'ready' as const,
      };
    }));
  for (let start = 0; start < media.length; start += batchSize) {
    await db.media.insertMany(media.slice(start, start + batchSize));
  }
  return organizations;
}

function pickState(): PostState {
  const roll = Math.random();
  if (roll < 0.85) return 'PUBLISHED';
  if (roll < 0.9) return 'ERROR';
  if (roll < 0.95) return 'DRAFT';
  return 'QUEUE';
}

function publishDateFor(state: PostState, now: number): Date {
  if (state === 'QUEUE') return new Date(farFutureMs + Math.random() * 365 * dayMs);
  if (state === 'DRAFT') return new Date(now + (Math.random() - 0.5) * 60 * dayMs);
  return new Date(now - Math.random() * 365 * dayMs);
}

/** One post on one channel: its root and, one time in three, 1 or 2 thread replies (at most `room` parts). */
function makeThread(organization: SeededOrganization, instanceUrl: string, now: number, room: number) {
  const state = pickState();
  const publishDate = publishDateFor(state, now);
  const rootId = new Types.ObjectId();
  const partCount = Math.min(room, Math.random() < 1 / 3 ? 2 + Math.floor(Math.random() * 2) : 1);
  const published = state === 'PUBLISHED';
  const group = randomBytes(8).toString('hex');
  const mediaId = organization.mediaIds[Math.floor(Math.random() * organization.mediaIds.length)];
  const parts = Array.from({ length: partCount }, (_, position) => {
    const id = position === 0 ? rootId : new Types.ObjectId();
    const publishedAt = published ? new Date(publishDate.getTime() + position * 1000) : null;
    const withMedia = position === 0 && mediaId !== undefined && Math.random() < 0.1;
    return {
      _id: id,
      organizationId: organization.organizationId,
      channelId: organization.channelId,
      group,
      rootPostId: position === 0 ? null : rootId,
      position,
      replyCount: position === 0 ? partCount - 1 : null,
      content: `Seeded post ${id.toString()}, part ${position + 1} of ${partCount}`,
      media: withMedia ? [{ id: mediaId.toString(), path: mediaPath(mediaId), alt: null, thumbnail: null }] : [],
      settings: { __type: 'mastodon' },
      publishDate,
      state,
      releaseId: published ? `seed-${id.toString()}` : null,
      releaseURL: published ? `${instanceUrl}/@seed/${id.toString()}` : null,
      publishedAt,
      error: state === 'ERROR' ? 'The access token is invalid' : null,
      notifiedAt: published && position === 0 ? publishedAt : null,
      createdAt: new Date(publishDate.getTime() - dayMs),
      updatedAt: publishedAt ?? publishDate,
    };
  });
  const root = parts[0];
  const notification = published && root !== undefined
    ? {
      organizationId: organization.organizationId,
      content: `Your post was published on Mastodon at ${root.releaseURL ?? ''}`,
      link: root.releaseURL,
      createdAt: root.publishedAt ?? publishDate,
    }
    : null;
  return { parts, notification };
}

/**
 * Keeps up to `limit` inserts running; `add` waits for the oldest when the limit is reached. A
 * failed insert is held as a value until its turn, then thrown, so no rejection goes unhandled.
 */
class PendingWrites {
  readonly #limit: number;
  readonly #running: Promise<{ failure: unknown } | null>[] = [];
  constructor(limit: number) { this.#limit = limit; }

  async add(write: Promise<unknown>): Promise<void> {
    this.#running.push(write.then(() => null, (failure: unknown) => ({ failure })));
    if (this.#running.length >= this.#limit) PendingWrites.#settle(await this.#running.shift());
  }

  async drain(): Promise<void> {
    for (const outcome of await Promise.all(this.#running.splice(0))) PendingWrites.#settle(outcome);
  }

  static #settle(outcome: { failure: unknown } | null | undefined): void {
    if (outcome !== null && outcome !== undefined) throw outcome.failure;
  }
}

/**
 * Adds `count` post documents (thread parts count one each) round-robin over the organizations,
 * with a notification per published post, in insertMany batches of 1,000.
 */
export async function seedPosts(
  db: Database,
  organizations: SeededOrganization[],
  options: { count: number; instanceUrl: string },
  log: (line: string) => void,
): Promise<SeedReport> {
  if (organizations.length === 0) throw new Error('seeding posts needs at least one organization');
  const started = performance.now();
  const now = Date.now();
  type Thread = ReturnType<typeof makeThread>;
  let posts: Thread['parts'] = [];
  let notifications: NonNullable<Thread['notification']>[] = [];
  const report: SeedReport = { posts: 0, notifications: 0, seconds: 0 };
  const pending = new PendingWrites(writesInFlight);
  let nextProgress = 10_000;
  let made = 0;
  for (let index = 0; made < options.count; index += 1) {
    const organization = organizations[index % organizations.length];
    if (organization === undefined) throw new Error('unreachable: index modulo length');
    const thread = makeThread(organization, options.instanceUrl, now, options.count - made);
    made += thread.parts.length;
    posts.push(...thread.parts);
    if (thread.notification !== null) notifications.push(thread.notification);
    const last = made >= options.count;
    if (posts.length >= batchSize || last) {
      await pending.add(db.posts.insertMany(posts, { ordered: true }));
      report.posts += posts.length;
      posts = [];
    }
    if (notifications.length >= batchSize || (last && notifications.length > 0)) {
      await pending.add(db.notifications.insertMany(notifications, { ordered: true }));
      report.notifications += notifications.length;
      notifications = [];
    }
    if (report.posts >= nextProgress) {
      const seconds = (performance.now() - started) / 1000;
      const done = report.posts.toLocaleString('en');
      log(`seeded ${done} of ${options.count.toLocaleString('en')} posts in ${seconds.toFixed(0)} s`);
      nextProgress += 10_000;
    }
  }
  await pending.drain();
  report.seconds = (performance.now() - started) / 1000;
  return report;
}

const seedArguments = z.object({
  posts: z.coerce.number().int().min(1).max(10_000_000),
  organizations: z.coerce.number().int().min(1).max(100_000),
  media: z.coerce.number().int().min(0).max(100),
  instance: z.url(),
});

const usage = 'usage: npm run bench:seed -- [--posts 100000] [--organizations 100] [--media 3] '
  + '[--instance <URL of the channels>]';

if (import.meta.main) {
  await runScript(async (config) => {
    const { values } = parseArgs({
      options: {
        posts: { type: 'string', default: '100000' },
        organizations: { type: 'string', default: '100' },
        media: { type: 'string', default: '3' },
        instance: { type: 'string', default: 'https://mastodon.example' },
      },
      strict: true,
    });
    const parsed = seedArguments.safeParse(values);
    if (!parsed.success) throw new Error(`${z.prettifyError(parsed.error)}\n${usage}`);
    const options = parsed.data;
    const db = await openDatabase(config.MONGO_URL);
    try {
      const started = performance.now();
      const organizations = await seedOrganizations(db, new SecretBox(config.SECRETS_KEY), {
        count: options.organizations, instanceUrl: options.instance, mediaPerOrganization: options.media,
      });
      const posts = { count: options.posts, instanceUrl: options.instance };
      const report = await seedPosts(db, organizations, posts, logToStderr);
      const seconds = (performance.now() - started) / 1000;
      const result = {
        organizations: organizations.length, posts: report.posts, notifications: report.notifications,
        seconds: +seconds.toFixed(1),
      };
      logToStderr(`seeded ${result.posts} posts, ${result.notifications} notifications, `
        + `${result.organizations} organizations in ${result.seconds} s`);
      return result;
    } finally {
      await db.close();
    }
  });
}
