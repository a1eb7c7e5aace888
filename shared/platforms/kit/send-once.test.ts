import { describe, expect, it } from 'vitest';
import { memoryCheckpoint } from '../../../test/support/part-checkpoint.ts';
import { earlierSendOf, sendOnce } from './send-once.ts';

const at = Date.UTC(2030, 0, 1, 12);

function step(found: string | null) {
  const calls: string[] = [];
  return {
    calls,
    now: () => at,
    clockSlackMs: 1_000,
    find: (from: number) => {
      calls.push(`find from ${new Date(from).toISOString()}`);
      return Promise.resolve(found);
    },
    send: () => {
      calls.push('send');
      return Promise.resolve('made');
    },
  };
}

describe('sendOnce', () => {
  it('marks the first attempt before sending, without looking', async () => {
    const checkpoint = memoryCheckpoint();
    const first = step(null);

    expect(await sendOnce({ ...first, checkpoint })).toBe('made');
    expect(checkpoint.saves).toEqual([{ sentAt: '2030-01-01T12:00:00.000Z' }]);
    expect(first.calls).toEqual(['send']);
    expect(earlierSendOf(checkpoint)).toBe(at);
  });

  it('takes what an earlier attempt made, looked for from its mark less the slack', async () => {
    const checkpoint = memoryCheckpoint({ sentAt: '2030-01-01T11:00:00.000Z' });
    const retry = step('found');

    expect(await sendOnce({ ...retry, checkpoint })).toBe('found');
    expect(retry.calls).toEqual(['find from 2030-01-01T10:59:59.000Z']);
    expect(checkpoint.saves).toEqual([]);
  });

  it('sends when the earlier attempt made nothing, keeping the first mark', async () => {
    const checkpoint = memoryCheckpoint({ sentAt: '2030-01-01T11:00:00.000Z' });
    const retry = step(null);

    expect(await sendOnce({ ...retry, checkpoint })).toBe('made');
    expect(retry.calls).toEqual(['find from 2030-01-01T10:59:59.000Z', 'send']);
    expect(checkpoint.values.sentAt).toBe('2030-01-01T11:00:00.000Z');
  });
});
