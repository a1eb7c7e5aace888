import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MastodonSimulator } from '../test/simulators/mastodon/mastodon-simulator.ts';
import { organizationWithMastodon } from '../test/support/fixtures.ts';
import { waitFor, type RunningStack } from '../test/support/stack.ts';
import { useSimulatedStack } from '../test/support/simulated-stack.ts';
import type { TestContext } from '../test/support/test-context.ts';
import { removeTemporaryFolders, runCli, stdoutJson, temporaryFolder, temporaryHome, type CliRun } from './test/run-cli.ts';

interface PostDetail {
  id: string;
  content: string;
  state: string;
  group: string;
  publishDate: string;
  releaseId: string | null;
  settings: Record<string, unknown>;
  value: { content: string; state: string }[];
}

describe('sps posts:* against the api', () => {
  const world = useSimulatedStack();
  let ctx: TestContext;
  let stack: RunningStack;
  let simulator: MastodonSimulator;
  let org: { apiKey: string; channelId: string };
  const home = temporaryHome();
  const files = temporaryFolder('sps-cli-posts-');

  beforeAll(async () => {
    ({ ctx, stack, simulator } = world);
    org = await organizationWithMastodon(ctx, simulator.origin, simulator.addAccount('cli'));
  });
  afterAll(() => { removeTemporaryFolders(); });

  const sps = (...args: string[]): Promise<CliRun> => runCli(args, { home, env: { SERVICE_API_KEY: org.apiKey, SERVICE_API_URL: `${stack.baseUrl}/api` } });
  function expectFailure(run: CliRun, code: string, message: string | RegExp): void {
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(new RegExp(`\\(${code}, HTTP \\d{3}\\)`));
    if (typeof message === 'string') expect(run.stderr).toContain(message);
    else expect(run.stderr).toMatch(message);
  }
  async function create(...args: string[]): Promise<string> {
    const created = (stdoutJson(await sps('posts:create', '--channel', org.channelId, ...args)) as { postId: string; integration: string }[]);
    expect(created).toHaveLength(1);
    return created[0]?.postId ?? '';
  }

  it('posts:create schedules a thread with settings from flags; posts:get shows it; posts:list finds it', async () => {
    const id = await create('--content', 'CLI root', '--content', 'CLI reply', '--type', 'schedule', '--date', '2032-05-01T10:00:00Z', '--settings', '{"visibility":"unlisted"}');
    const post = (stdoutJson(await sps('posts:get', id)) as PostDetail);
    expect(post).toMatchObject({ id, state: 'QUEUE', publishDate: '2032-05-01T10:00:00.000Z', settings: { visibility: 'unlisted' } });
    expect(post.value.map((part) => part.content)).toEqual(['CLI root', 'CLI reply']);
    const listed = (stdoutJson(await sps('posts:list', '--start', '2032-05-01T00:00:00Z', '--end', '2032-05-02T00:00:00Z')) as { posts: PostDetail[] });
    expect(listed.posts.map((listedPost) => [listedPost.id, listedPost.content])).toEqual([[id, 'CLI root']]);
  });

  it('posts:create --every-days and --repeat-rule make recurring posts; posts:delete --series ends one', async () => {
    const daily = await create('--content', 'CLI daily', '--type', 'schedule', '--date', '2032-06-01T10:00:00Z',
      '--every-days', '2');
    expect(stdoutJson(await sps('posts:get', daily)))
      .toMatchObject({ intervalInDays: 2, seriesId: daily, repeat: null });
    const weekly = await create('--content', 'CLI weekly', '--type', 'schedule', '--date', '2032-06-07T10:00:00Z',
      '--repeat-rule', 'FREQ=WEEKLY;BYDAY=MO,TH', '--repeat-count', '4');
    expect(stdoutJson(await sps('posts:get', weekly))).toMatchObject({
      intervalInDays: null, seriesId: weekly, occurrence: 1, repeat: { rule: 'FREQ=WEEKLY;BYDAY=MO,TH', count: 4 },
    });
    expect(stdoutJson(await sps('posts:delete', weekly, '--series')))
      .toEqual({ id: weekly, deleted: true, series: { seriesId: weekly, deleted: 1 } });
    expectFailure(await sps('posts:create', '--channel', org.channelId, '--content', 'x', '--type', 'schedule',
      '--date', '2032-06-07T10:00:00Z', '--repeat-rule', 'FREQ=DAILY'), 'validation_failed', /until or count/);
  });

  it('posts:create --type queue takes the channel\'s next free posting slot', async () => {
    const schedule = await fetch(`${stack.baseUrl}/api/public/v1/integrations/${org.channelId}/schedule`, {
      method: 'PUT',
      headers: { Authorization: org.apiKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({ timeZone: 'Europe/Berlin', postingSlots: [{ weekday: 3, time: '09:30' }] }),
    });
    expect(schedule.status).toBe(200);
    const slot = await fetch(`${stack.baseUrl}/api/public/v1/find-slot/${org.channelId}`, {
      headers: { Authorization: org.apiKey },
    });
    const { date } = await slot.json() as { date: string };
    const id = await create('--content', 'Into the next slot', '--type', 'queue');
    const post = stdoutJson(await sps('posts:get', id)) as PostDetail;
    expect(post.publishDate).toBe(new Date(date).toISOString());
    // Wednesday 09:30 in Berlin is 07:30 or 08:30 UTC, as daylight saving has it.
    expect(new Date(date).getUTCDay()).toBe(3);
    expect(['07:30', '08:30']).toContain(new Date(date).toISOString().slice(11, 16));
  });

  it('posts:list and posts:get report the server\'s refusals', async () => {
    expectFailure(
      await sps('posts:list', '--start', '2032-02-01', '--end', '2032-01-01'),
      'validation_failed',
      'Error: endDate must not be before startDate (validation_failed, HTTP 400)',
    );
    expectFailure(
      await sps('posts:get', '000000000000000000000000'),
      'not_found',
      'Error: post "000000000000000000000000" was not found (not_found, HTTP 404)',
    );
    const missingFlag = await sps('posts:list', '--start', '2032-01-01');
    expect(missingFlag.code).toBe(1);
    expect(missingFlag.stderr).toContain('required option \'--end <iso>\' not specified');
  });

  it('posts:create shows the validation message and each detail when the platform refuses the content', async () => {
    const run = await sps('posts:create', '--channel', org.channelId, '--content', 'é'.repeat(501));
    expectFailure(run, 'validation_failed', 'posts.0.value.0.content: Mastodon channel "Our Mastodon": has 501 characters; Mastodon allows 500');
  });

  it('posts:validate prints the dry run: exit 0 when the post is fine, exit 1 with the problems when not', async () => {
    const before = await ctx.db.posts.countDocuments();
    const fine = await sps('posts:validate', '--channel', org.channelId, '--content', 'Fits');
    expect(fine.code).toBe(0);
    expect(stdoutJson(fine)).toEqual({ valid: true, problems: [] });
    const tooLong = await sps('posts:validate', '--channel', org.channelId, '--content', 'é'.repeat(501));
    expect(tooLong.code).toBe(1);
    expect(JSON.parse(tooLong.stdout)).toMatchObject({
      valid: false,
      problems: [{ channel: org.channelId, part: 0, path: 'posts.0.value.0.content', code: 'validation_failed' }],
    });
    expect(tooLong.stderr).toContain('posts:create would be refused: 1 problem(s)');
    expect(await ctx.db.posts.countDocuments()).toBe(before);
  });

  it('posts:create refuses bad flags before calling the server', async () => {
    const badJson = await sps('posts:create', '--channel', org.channelId, '--content', 'x', '--settings', '{visibility');
    expect(badJson.code).toBe(1);
    expect(badJson.stderr).toMatch(/option '--settings <json>' argument '\{visibility' is invalid\. not valid JSON/);
    const noChannel = await sps('posts:create', '--content', 'x');
    expect(noChannel.code).toBe(1);
    expect(noChannel.stderr).toContain('name at least one channel with --channel <id>');
    const badType = await sps('posts:create', '--channel', org.channelId, '--content', 'x', '--type', 'later');
    expect(badType.code).toBe(1);
    expect(badType.stderr).toMatch(/Allowed choices are draft, schedule, now, queue/);
    const badMedia = await sps('posts:create', '--channel', org.channelId, '--content', 'x', '--media', 'just-an-id');
    expect(badMedia.code).toBe(1);
    expect(badMedia.stderr).toContain('expected <id>:<path>');
  });

  it('posts:create --file sends the whole body; posts:delete --group deletes the group', async () => {
    const group = `cli-group-${Date.now()}`;
    const file = path.join(files, 'post.json');
    const body = { type: 'draft', posts: [{ integration: { id: org.channelId }, group, value: [{ content: 'From a file' }] }] };
    writeFileSync(file, JSON.stringify(body));
    const created = (stdoutJson(await sps('posts:create', '--file', file)) as { postId: string }[]);
    const post = (stdoutJson(await sps('posts:get', created[0]?.postId ?? '')) as PostDetail);
    expect(post).toMatchObject({ content: 'From a file', state: 'DRAFT', group });
    const mixed = await sps('posts:create', '--file', file, '--content', 'also this');
    expect(mixed.code).toBe(1);
    expect(mixed.stderr).toContain('--file holds the whole post');
    expect(stdoutJson(await sps('posts:delete', '--group', group))).toEqual({ group, deleted: 1, skipped: [] });
    expectFailure(
      await sps('posts:delete', '--group', group),
      'not_found',
      `Error: post group ${JSON.stringify(group)} was not found (not_found, HTTP 404)`,
    );
  });

  it('posts:delete --on-platform takes the published status off Mastodon; posts:get shows it removed', async () => {
    const id = await create('--content', 'CLI gone from Mastodon', '--type', 'now');
    const published = await waitFor(async () => {
      const post = stdoutJson(await sps('posts:get', id)) as PostDetail;
      return post.state === 'PUBLISHED' ? post : undefined;
    }, { what: 'the post to be published' });
    // The publish job may still be finishing (409, "try again in a moment"), as a user would.
    const deleted = await waitFor(async () => {
      const run = await sps('posts:delete', id, '--on-platform');
      return run.stderr.includes('(conflict, HTTP 409)') ? undefined : run;
    }, { what: 'posts:delete to be taken' });
    const answer = stdoutJson(deleted) as { removal: { parts: { state: string; releaseId: string }[] } };
    expect(answer.removal.parts).toMatchObject([{ state: 'queued', releaseId: published.releaseId }]);
    await waitFor(async () => {
      const post = stdoutJson(await sps('posts:get', id)) as { removal: { done: boolean } };
      return post.removal.done ? true : undefined;
    }, { what: 'the removal' });
    expect(simulator.statuses.some((status) => status.id === published.releaseId)).toBe(false);
  });

  it('posts:status turns a post into a draft and back; posts:delete removes it', async () => {
    const id = await create('--content', 'Flip', '--type', 'schedule', '--date', new Date(Date.now() + 86_400_000).toISOString());
    expect(stdoutJson(await sps('posts:status', id, 'draft'))).toEqual({ id, state: 'DRAFT' });
    expect(stdoutJson(await sps('posts:status', id, 'schedule'))).toEqual({ id, state: 'QUEUE' });
    const badStatus = await sps('posts:status', id, 'published');
    expect(badStatus.code).toBe(1);
    expect(badStatus.stderr).toMatch(/Allowed choices are draft, schedule/);
    expect(stdoutJson(await sps('posts:delete', id))).toEqual({ id, deleted: true });
    for (const args of [['posts:get', id], ['posts:status', id, 'draft'], ['posts:delete', id]]) {
      expectFailure(
        await sps(...args),
        'not_found',
        `Error: post ${JSON.stringify(id)} was not found (not_found, HTTP 404)`,
      );
    }
    const neither = await sps('posts:delete');
    expect(neither.code).toBe(1);
    expect(neither.stderr).toContain('give either a post id or --group <group>');
  });

  it('posts:retry sends again only the thread reply the platform refused; a second retry is refused', async () => {
    simulator.failNext('pass', { status: 422, body: { error: 'Validation failed: refused reply' } });
    const id = await create('--content', 'CLI retried 1/2', '--content', 'CLI retried 2/2');
    await waitFor(async () => {
      const reply = await ctx.db.posts.findOne({ rootPostId: id }).lean();
      return reply?.state === 'ERROR' ? true : undefined;
    }, { what: 'the reply to fail' });
    const retried = stdoutJson(await sps('posts:retry', id)) as PostDetail;
    expect(retried).toMatchObject({ id, value: [{ state: 'PUBLISHED' }, {}] });
    expect(['QUEUE', 'PUBLISHED']).toContain(retried.value[1]?.state);
    const reply = await waitFor(
      () => simulator.statuses.find((item) => item.text === 'CLI retried 2/2'), { what: 'the reply on the simulator' },
    );
    const root = simulator.statuses.filter((item) => item.text === 'CLI retried 1/2');
    expect(root).toHaveLength(1);
    expect(reply.in_reply_to_id).toBe(root[0]?.id);
    await waitFor(async () => ((await ctx.db.posts.findOne({ rootPostId: id }).lean())?.state === 'PUBLISHED'
      ? true : undefined), { what: 'the reply to be published' });
    expectFailure(await sps('posts:retry', id), 'conflict', `post ${id} has nothing to retry: every part is published`);
  });

  it('posts:create --type now publishes at once; posts:missing and posts:connect relink a post whose release id went missing', async () => {
    const id = await create('--content', 'Published from the CLI');
    const status = await waitFor(() => simulator.statuses.find((item) => item.text === 'Published from the CLI'), { what: 'the status on the simulator' });
    await waitFor(async () => ((await ctx.db.posts.findById(id).lean())?.state === 'PUBLISHED' ? true : undefined), { what: 'the post to be published' });
    expectFailure(await sps('posts:missing', id), 'not_missing', `post ${id} is not missing its release id`);
    expectFailure(
      await sps('posts:connect', id, status.id),
      'not_missing',
      `post ${id} already has its release id; only posts whose release id is "missing" can be given one`,
    );

    await ctx.db.posts.updateOne({ _id: id }, { $set: { releaseId: 'missing' } });
    const recent = (stdoutJson(await sps('posts:missing', id)) as { id: string; url: string }[]);
    expect(recent).toContainEqual({ id: status.id, url: status.url });
    const connected = (stdoutJson(await sps('posts:connect', id, status.id)) as PostDetail);
    expect(connected).toMatchObject({ id, releaseId: status.id, state: 'PUBLISHED' });
  });
});
