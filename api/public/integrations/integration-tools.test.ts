import { Types } from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { api, organizationWithMastodon } from '../../../test/support/fixtures.ts';
import { createTestContext } from '../../../test/support/test-context.ts';
import { channelTestKit, expectError, v1 } from '../../../test/support/channel-test-kit.ts';
import { MastodonSimulator } from '../../../test/simulators/mastodon/mastodon-simulator.ts';
import { startStack, waitFor, type RunningStack } from '../../../test/support/stack.ts';
import { useSimulatedStack } from '../../../test/support/simulated-stack.ts';
import type { TestContext } from '../../../test/support/test-context.ts';

const slotAnswer = z.object({ date: z.iso.datetime() });
const defaultPostingTimes = [560, 850, 1140];

/** The first default posting time strictly after `after` (what find-slot answers when nothing is taken). */
function firstSlotAfter(after: number, times: number[] = defaultPostingTimes): number {
  const day = new Date(after);
  const startOfDay = Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate());
  for (let offset = 0; ; offset += 1) {
    for (const minutes of times) {
      const slot = startOfDay + offset * 86_400_000 + minutes * 60_000;
      if (slot > after) return slot;
    }
  }
}

describe('channel routes that reach the platform or the calendar: integration-trigger, find-slot', () => {
  // Warnings are kept (in memory) so a test can find the system error the worker logged.
  const world = useSimulatedStack({ overrides: { LOG_LEVEL: 'warn' } });
  const { call, mastodonOrg, insertChannel, addMastodonChannel, schedulePost } = channelTestKit(world);
  let ctx: TestContext;
  let simulator: MastodonSimulator;
  beforeAll(() => {
    ({ ctx, simulator } = world);
  });

  describe('POST /integration-trigger/:id', () => {
    it('runs instanceLimits through the platform worker and answers what the instance reports', async () => {
      const org = await mastodonOrg();
      const before = simulator.requests.length;
      const response = await call(org.apiKey, `/integration-trigger/${org.channelId}`, { method: 'POST', body: { methodName: 'instanceLimits' } });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        output: {
          maxCharacters: 500, maxMediaAttachments: 4, charactersReservedPerUrl: 23,
          supportedMimeTypes: [
            'image/jpeg', 'image/png', 'image/gif', 'image/heic', 'image/heif', 'image/webp', 'image/avif',
            'video/mp4', 'video/x-m4v', 'video/quicktime', 'video/webm', 'video/ogg',
          ],
        },
      });
      const asked = simulator.requests.slice(before).filter((request) => request.path === '/api/v2/instance');
      expect(asked).toHaveLength(1);
      expect(asked[0]?.headers.authorization).toBe(`Bearer ${org.token}`);
    });

    it('accepts (and passes on) a data object', async () => {
      const org = await mastodonOrg();
      const response = await call(org.apiKey, `/integration-trigger/${org.channelId}`, { method: 'POST', body: { methodName: 'instanceLimits', data: { unused: true } } });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ output: { maxCharacters: 500 } });
    });

    it('answers 404 tool_not_found for a tool the platform does not have', async () => {
      const org = await mastodonOrg();
      const message = expectError(await call(org.apiKey, `/integration-trigger/${org.channelId}`, { method: 'POST', body: { methodName: 'flairs' } }), 404, 'tool_not_found');
      expect(message).toContain('flairs');
      const redditChannel = await insertChannel(org.organizationId, 'reddit');
      expectError(await call(org.apiKey, `/integration-trigger/${redditChannel}`, { method: 'POST', body: { methodName: 'instanceLimits' } }), 404, 'tool_not_found');
    });

    it('answers 400 for a missing, empty or too long methodName, a data that is not an object, and a body that is not JSON', async () => {
      const org = await mastodonOrg();
      const trigger = (init: { body?: unknown; rawBody?: string; headers?: Record<string, string> }) => call(org.apiKey, `/integration-trigger/${org.channelId}`, { method: 'POST', ...init });
      const missing = expectError(await trigger({ body: {} }), 400, 'validation_failed');
      expect(missing).toContain('methodName');
      expectError(await trigger({ body: { data: {} } }), 400, 'validation_failed');
      expectError(await trigger({ body: { methodName: '' } }), 400, 'validation_failed');
      expectError(await trigger({ body: { methodName: 'x'.repeat(101) } }), 400, 'validation_failed');
      expectError(await trigger({ body: { methodName: 42 } }), 400, 'validation_failed');
      expectError(await trigger({ body: { methodName: 'instanceLimits', data: 'subreddit' } }), 400, 'validation_failed');
      expectError(await trigger({ rawBody: '{"methodName":', headers: { 'Content-Type': 'application/json' } }), 400, 'invalid_json');
    });

    // Issue 18, item 6: `data` is queued as a job; nesting this deep overflowed JSON.stringify (500).
    it('answers 400 naming the place for data nested too deep, too large or with keys MongoDB reads as operators',
      async () => {
        const org = await mastodonOrg();
        const trigger = (data: string) => call(org.apiKey, `/integration-trigger/${org.channelId}`, {
          method: 'POST',
          rawBody: `{"methodName":"instanceLimits","data":${data}}`,
          headers: { 'Content-Type': 'application/json' },
        });
        const cases: [string, string, string][] = [
          [
            `{"a":${'[{"a":'.repeat(500)}1${'}]'.repeat(500)}}`,
            'data.a.0.a.0.a.0.a.0.a.0.a.0.a.0.a.0.a',
            'data.a.0.a.0.a.0.a.0.a.0.a.0.a.0.a.0.a: nested more than 16 levels deep',
          ],
          [
            `{"a":${'['.repeat(1_000)}${']'.repeat(1_000)}}`,
            'data.a.0',
            'data.a.0: an array cannot hold another array directly; wrap the inner one in an object',
          ],
          // Deeper than any body may be (api/middleware/json-body.ts): refused before it is parsed.
          [
            `{"a":${'[{"a":'.repeat(50_000)}1${'}]'.repeat(50_000)}}`,
            'body',
            'the request body nests arrays and objects more than 2048 levels deep',
          ],
          [`{"big":"${'b'.repeat(70 * 1024)}"}`, 'data', 'data: larger than 64 KB'],
          ['{"$where":"sleep(1000)"}', 'data.$where', 'data.$where: a key cannot start with "$"'],
        ];
        for (const [data, path, message] of cases) {
          const response = await trigger(data);
          expect(response.status).toBe(400);
          expect(response.body).toMatchObject({
            statusCode: 400, error: 'validation_failed', message, details: [{ path }],
          });
        }
      });

    it('answers 404 not_found for an unknown id, a malformed id and another organization\'s channel', async () => {
      const org = await mastodonOrg();
      const stranger = await mastodonOrg();
      const body = { methodName: 'instanceLimits' };
      expectError(await call(org.apiKey, `/integration-trigger/${new Types.ObjectId().toString()}`, { method: 'POST', body }), 404, 'not_found');
      expectError(await call(org.apiKey, '/integration-trigger/123', { method: 'POST', body }), 404, 'not_found');
      expectError(await call(org.apiKey, `/integration-trigger/${stranger.channelId}`, { method: 'POST', body }), 404, 'not_found');
    });

    it('answers 502 platform_error with the platform\'s own message when the instance refuses the call', async () => {
      const org = await mastodonOrg();
      // The instance URL no longer leads to a Mastodon API: the simulator answers 404 "Record not found".
      await ctx.db.channels.updateOne({ _id: org.channelId }, { $set: { instanceUrl: `${simulator.origin}/moved-away` } });
      const message = expectError(await call(org.apiKey, `/integration-trigger/${org.channelId}`, { method: 'POST', body: { methodName: 'instanceLimits' } }), 502, 'platform_error');
      expect(message).toContain('Record not found');
    });

    it('answers 502 platform_error, the same for a refused port and an unresolvable name (no port scans)', async () => {
      const gone = await new MastodonSimulator().start();
      const token = gone.addAccount('gone');
      const refusedPort = await organizationWithMastodon(ctx, gone.origin, token);
      await gone.stop();
      const unresolvable = await organizationWithMastodon(ctx, 'http://sps-nowhere.invalid:8443', token);
      const trigger = async (org: { apiKey: string; channelId: string }) => {
        const body = { methodName: 'instanceLimits' };
        const response = await call(org.apiKey, `/integration-trigger/${org.channelId}`, { method: 'POST', body });
        return expectError(response, 502, 'platform_error');
      };
      const refusedMessage = await trigger(refusedPort);
      const unresolvableMessage = await trigger(unresolvable);
      expect(refusedMessage).toBe('the platform call failed: could not reach the Mastodon instance');
      expect(unresolvableMessage).toBe(refusedMessage);
      // The system error stays in the worker's log, where the operator can read it.
      const logged = (code: string) => (ctx.logLines.some((line) => line.includes(code)) ? true : undefined);
      await waitFor(() => logged('ENOTFOUND'), { what: 'the DNS error in the log' });
      expect(logged('ECONNREFUSED')).toBe(true);
    });

    describe('when no worker answers', () => {
      let quiet: TestContext;
      let quietStack: RunningStack;

      beforeAll(async () => {
        quiet = await createTestContext({ PLATFORM_CALL_WAIT_MS: '300' });
        quietStack = await startStack(quiet, { workers: false });
      });
      afterAll(async () => {
        await quietStack.close();
        await quiet.cleanup();
      });

      it('answers 504 platform_timeout after the configured wait', async () => {
        const org = await organizationWithMastodon(quiet, simulator.origin, simulator.addAccount('quiet'));
        const started = Date.now();
        const response = await api(quietStack.baseUrl, org.apiKey, `${v1}/integration-trigger/${org.channelId}`, { method: 'POST', body: { methodName: 'instanceLimits' } });
        expect(Date.now() - started).toBeGreaterThanOrEqual(300);
        const message = expectError(response, 504, 'platform_timeout');
        expect(message).toContain('0.3 seconds');
      });
    });
  });

  describe('GET /find-slot/:id', () => {
    it('answers the next default posting time in the future', async () => {
      const org = await mastodonOrg();
      const before = Date.now();
      const response = await call(org.apiKey, `/find-slot/${org.channelId}`);
      const after = Date.now();
      expect(response.status).toBe(200);
      const { date } = slotAnswer.parse(response.body);
      expect(date).toMatch(/Z$/);
      const slot = new Date(date).getTime();
      expect(slot).toBeGreaterThan(before);
      expect(slot % 60_000).toBe(0);
      expect(defaultPostingTimes).toContain(new Date(slot).getUTCHours() * 60 + new Date(slot).getUTCMinutes());
      expect([firstSlotAfter(before), firstSlotAfter(after)]).toContain(slot);
    });

    it('skips a slot taken by a scheduled post of the channel, and offers it again once that post is deleted', async () => {
      const org = await mastodonOrg();
      const first = new Date(slotAnswer.parse((await call(org.apiKey, `/find-slot/${org.channelId}`)).body).date);
      const postId = await schedulePost(org.apiKey, org.channelId, first);

      const beforeNext = Date.now();
      const next = new Date(slotAnswer.parse((await call(org.apiKey, `/find-slot/${org.channelId}`)).body).date).getTime();
      expect(next).toBeGreaterThan(first.getTime());
      expect(next).toBe(firstSlotAfter(Math.max(first.getTime(), beforeNext)));

      expect(await call(org.apiKey, `/posts/${postId}`, { method: 'DELETE' })).toMatchObject({
        status: 200, body: { id: postId, deleted: true },
      });
      const beforeFreed = Date.now();
      const freed = new Date(slotAnswer.parse((await call(org.apiKey, `/find-slot/${org.channelId}`)).body).date).getTime();
      expect(freed).toBe(firstSlotAfter(beforeFreed));
      if (first.getTime() > beforeFreed) expect(freed).toBe(first.getTime());
    });

    it('ignores posts of the organization\'s other channels', async () => {
      const org = await mastodonOrg();
      const sibling = await addMastodonChannel(org.organizationId, 'Sibling');
      const first = new Date(slotAnswer.parse((await call(org.apiKey, `/find-slot/${org.channelId}`)).body).date);
      await schedulePost(org.apiKey, sibling, first);
      const before = Date.now();
      const again = new Date(slotAnswer.parse((await call(org.apiKey, `/find-slot/${org.channelId}`)).body).date);
      expect(again.getTime()).toBe(firstSlotAfter(before));
      if (first.getTime() > before) expect(again.getTime()).toBe(first.getTime());
    });

    it('answers 409 conflict when the channel has no posting times or every one is taken for 90 days', async () => {
      const org = await mastodonOrg();
      await ctx.db.channels.updateOne({ _id: org.channelId }, { $set: { postingTimes: [] } });
      expectError(await call(org.apiKey, `/find-slot/${org.channelId}`), 409, 'conflict');

      await ctx.db.channels.updateOne({ _id: org.channelId }, { $set: { postingTimes: [600] } });
      const today = new Date();
      const startOfDay = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate());
      const channelId = new Types.ObjectId(org.channelId);
      const organizationId = new Types.ObjectId(org.organizationId);
      await ctx.db.posts.insertMany(Array.from({ length: 92 }, (_, day) => ({
        organizationId, channelId, group: 'full', position: 0, state: 'QUEUE', publishDate: new Date(startOfDay + day * 86_400_000 + 600 * 60_000),
      })));
      const message = expectError(await call(org.apiKey, `/find-slot/${org.channelId}`), 409, 'conflict');
      expect(message).toContain('90 days');
    });

    it('answers 404 not_found for an unknown id, a malformed id and another organization\'s channel', async () => {
      const org = await mastodonOrg();
      const stranger = await mastodonOrg();
      expectError(await call(org.apiKey, `/find-slot/${new Types.ObjectId().toString()}`), 404, 'not_found');
      expectError(await call(org.apiKey, '/find-slot/zzzzzzzzzzzzzzzzzzzzzzzz'), 404, 'not_found');
      expectError(await call(org.apiKey, `/find-slot/${stranger.channelId}`), 404, 'not_found');
    });
  });
});
