// The fair baseline of a burst of due posts (issue 31): a bare BullMQ worker doing the durable
// writes a publish must make, with the raw driver: read the post, post it to the Mastodon
// stand-in, save the result on the post, insert the notification. No adapter, thread, slots,
// metrics or outbox: what any durable publishing worker must spend at least.
import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { MongoClient, ObjectId } from 'mongodb';
import { z } from 'zod';
import { baselineWorkerEnv, runBaselineWorker } from './baseline-worker.ts';

const env = baselineWorkerEnv.extend({ MONGO_URL: z.string().regex(/^mongodb:\/\//) }).parse(process.env);

const jobData = z.object({ postId: z.string().regex(/^[0-9a-f]{24}$/) });
const status = z.object({ id: z.string(), url: z.string() });

const mongo = await MongoClient.connect(env.MONGO_URL);
const posts = mongo.db().collection('posts');
const notifications = mongo.db().collection('notifications');

const worker = new Worker(env.BARE_QUEUE, async (job) => {
  const { postId } = jobData.parse(job.data);
  const _id = new ObjectId(postId);
  const post = await posts.findOne({ _id, deletedAt: null });
  if (post === null) return;
  const response = await fetch(`${env.SIMULATOR_URL}/api/v1/statuses`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${env.SIMULATOR_TOKEN}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ status: String(post.content) }),
  });
  const answer: unknown = await response.json();
  if (!response.ok) throw new Error(`the simulator answered ${response.status}`);
  const published = status.parse(answer);
  const now = new Date();
  await posts.updateOne({ _id }, {
    $set: { state: 'PUBLISHED', releaseId: published.id, releaseURL: published.url, publishedAt: now, updatedAt: now },
  });
  await notifications.insertOne({
    organizationId: post.organizationId, content: 'Your post was published', link: published.url, createdAt: now,
  });
}, {
  connection: new Redis(env.REDIS_URL, { maxRetriesPerRequest: null }),
  prefix: env.QUEUE_PREFIX,
  concurrency: env.PUBLISH_CONCURRENCY,
});
await runBaselineWorker('durable publish worker', worker, () => mongo.close());
