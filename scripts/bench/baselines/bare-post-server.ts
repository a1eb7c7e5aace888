// The baselines of `POST /posts` and `GET /integrations` (issue 16), on the same MongoDB-wire
// server and Redis as SPS. POST /posts: a bare Koa handler that parses the same JSON body, stores
// an equivalent post document with one insertOne, writes its `post.created` row to the events feed
// with another (the contract's GET /events lists every post made), and queues one delayed BullMQ
// job; POST /posts/no-event skips the event row, as every post did before the feed (a floor, shown
// unscored). GET: one `find` of the organization's channels, answered as they are stored. No
// authentication, rate limit, platform rules or presentation: what any handler doing this work
// must spend at least.
import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import Koa from 'koa';
import { koaBody } from 'koa-body';
import { MongoClient, ObjectId } from 'mongodb';
import { z } from 'zod';

const env = z.object({
  PORT: z.coerce.number().int().min(1).max(65535),
  MONGO_URL: z.string().regex(/^mongodb:\/\//),
  REDIS_URL: z.string().regex(/^redis:\/\//),
  QUEUE_PREFIX: z.string().min(1),
  BARE_QUEUE: z.string().min(1),
  BARE_ORGANIZATION_ID: z.string().regex(/^[0-9a-f]{24}$/),
}).parse(process.env);

const body = z.object({
  date: z.iso.datetime(),
  posts: z.array(z.object({
    integration: z.object({ id: z.string().regex(/^[0-9a-f]{24}$/) }),
    value: z.array(z.object({ content: z.string() })).min(1),
  })).length(1),
});

const mongo = await MongoClient.connect(env.MONGO_URL);
const posts = mongo.db().collection('posts');
const channels = mongo.db().collection('channels');
const events = mongo.db().collection('events');
const connection = new Redis(env.REDIS_URL, { maxRetriesPerRequest: 1 });
const queue = new Queue(env.BARE_QUEUE, { connection, prefix: env.QUEUE_PREFIX });
const organizationId = new ObjectId(env.BARE_ORGANIZATION_ID);

const app = new Koa();
app.use(koaBody({ json: true, jsonStrict: true, urlencoded: false, text: false, multipart: false }));
app.use(async (ctx, next) => {
  if (ctx.method !== 'GET' || ctx.path !== '/integrations') { await next(); return; }
  ctx.body = await channels.find({ organizationId, deletedAt: null }).toArray();
});
app.use(async (ctx) => {
  const withEvent = ctx.path === '/posts';
  if (ctx.method !== 'POST' || (!withEvent && ctx.path !== '/posts/no-event')) { ctx.status = 404; return; }
  const input = body.safeParse(ctx.request.body);
  if (!input.success) {
    ctx.status = 400;
    ctx.body = { error: 'validation_failed', message: input.error.message };
    return;
  }
  const [entry] = input.data.posts;
  const content = entry?.value[0]?.content ?? '';
  const publishDate = new Date(input.data.date);
  const now = new Date();
  const post = {
    organizationId, channelId: new ObjectId(entry?.integration.id), group: randomUUID(), rootPostId: null, position: 0,
    content, media: [], settings: { __type: 'mastodon' }, tags: [], publishDate, delayMinutes: 0, state: 'QUEUE',
    releaseId: null, releaseURL: null, publishedAt: null, error: null, deletedAt: null, publishRecoveries: 0,
    notifiedAt: null, createdAt: now, updatedAt: now,
  };
  const { insertedId } = await posts.insertOne(post);
  if (withEvent) {
    const eventRowId = new ObjectId();
    const eventId = `evt_${eventRowId.toHexString()}`;
    const data = {
      postId: insertedId.toHexString(), group: post.group, channelId: entry?.integration.id, provider: 'mastodon',
      state: post.state, publishDate: publishDate.toISOString(),
    };
    const eventBody = { id: eventId, type: 'post.created', createdAt: now.toISOString(), organizationId, data };
    await events.insertOne({
      _id: eventRowId, organizationId, eventId, type: 'post.created', body: JSON.stringify(eventBody), createdAt: now,
    });
  }
  const delay = Math.max(0, publishDate.getTime() - now.getTime());
  await queue.add('publish-post', { postId: insertedId.toHexString() }, { delay });
  ctx.status = 201;
  ctx.body = [{ postId: insertedId.toHexString(), integration: entry?.integration.id }];
});

const server = app.listen(env.PORT, '127.0.0.1', () => {
  process.stdout.write(`bare post server listening on ${env.PORT}\n`);
});
process.once('SIGTERM', () => {
  server.close();
  void Promise.all([queue.close(), mongo.close()]).then(() => process.exit(0), (error: unknown) => {
    process.stderr.write(`bare post server: closing failed: ${String(error)}\n`);
    process.exit(1);
  });
});
