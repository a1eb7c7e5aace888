import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { organizationWithMastodon } from '../test/support/fixtures.ts';
import { useSimulatedStack } from '../test/support/simulated-stack.ts';
import { removeTemporaryFolders, runCli, stdoutJson, temporaryHome, type CliRun } from './test/run-cli.ts';

describe('sps slots:* against the api', () => {
  const world = useSimulatedStack({ workers: false });
  const home = temporaryHome();
  let org: { apiKey: string; channelId: string };

  beforeAll(async () => {
    org = await organizationWithMastodon(world.ctx, world.simulator.origin, world.simulator.addAccount('slots'));
  });
  afterAll(() => { removeTemporaryFolders(); });

  const sps = (...args: string[]): Promise<CliRun> => runCli(args, {
    home, env: { SERVICE_API_KEY: org.apiKey, SERVICE_API_URL: `${world.stack.baseUrl}/api` },
  });

  it('sets a channel\'s zone and slots, shows them, and names the next free slot in that zone', async () => {
    const schedule = {
      timeZone: 'Europe/Berlin',
      postingSlots: [{ weekday: 1, time: '09:00' }, { weekday: 5, time: '17:30' }],
    };
    const set = await sps(
      'slots:set', org.channelId, '--time-zone', 'Europe/Berlin', '--slot', 'mon@09:00', '--slot', '5@17:30',
    );
    expect(stdoutJson(set)).toEqual(schedule);
    expect(stdoutJson(await sps('slots:get', org.channelId))).toEqual(schedule);

    const { date } = stdoutJson(await sps('slots:next', org.channelId)) as { date: string };
    const local = DateTime.fromISO(date, { zone: 'Europe/Berlin' });
    expect([[1, '09:00'], [5, '17:30']]).toContainEqual([local.weekday, local.toFormat('HH:mm')]);
    expect(local.toMillis()).toBeGreaterThan(Date.now());
  });

  it('refuses a malformed slot before calling, and shows the server\'s refusal of an unknown zone', async () => {
    const badSlot = await sps('slots:set', org.channelId, '--time-zone', 'UTC', '--slot', 'someday@9');
    expect(badSlot.code).toBe(1);
    expect(badSlot.stderr).toContain('expected a weekday and a local time, like mon@09:00');
    const badZone = await sps('slots:set', org.channelId, '--time-zone', 'Mars/Base', '--slot', 'tue@10:00');
    expect(badZone.code).toBe(1);
    expect(badZone.stderr).toMatch(/\(unknown_time_zone, HTTP 422\)$/m);
    // Without slots the queue has none: the next slot is a conflict the server names.
    expect(stdoutJson(await sps('slots:set', org.channelId, '--time-zone', 'UTC'))).toEqual({
      timeZone: 'UTC', postingSlots: [],
    });
    const none = await sps('slots:next', org.channelId);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/\(conflict, HTTP 409\)$/m);
  });
});
