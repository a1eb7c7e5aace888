import { describe, expect, it } from 'vitest';
import { memoryCheckpoint } from '../../../test/support/part-checkpoint.ts';
import { PlatformError } from './platform-error.ts';
import { pickSent, sendOnce, unansweredSendAt } from './send-once.ts';

const now = () => Date.parse('2025-03-01T12:00:00Z');
const refusal = (status: number) =>
  new PlatformError({ kind: 'permanent', provider: 'p', message: 'no', httpStatus: status });

describe('sendOnce', () => {
  it('marks the attempt before sending, and does not look on a first attempt', async () => {
    const checkpoint = memoryCheckpoint();
    const order: string[] = [];
    const made = await sendOnce({
      checkpoint, now,
      find: () => { order.push('find'); return Promise.resolve(null); },
      send: () => { order.push(`send after ${checkpoint.values.sentAt ?? 'nothing'}`); return Promise.resolve(7); },
    });
    expect(made).toBe(7);
    expect(order).toEqual(['send after 2025-03-01T12:00:00.000Z']);
  });

  it('takes what an unanswered attempt made, looking from the first mark less the clock slack', async () => {
    const checkpoint = memoryCheckpoint({ sentAt: '2025-03-01T11:00:00.000Z' });
    let from = 0;
    const made = await sendOnce({
      checkpoint, now, clockSlackMs: 1000,
      find: (since) => { from = since; return Promise.resolve(3); },
      send: () => Promise.reject(new Error('must not send')),
    });
    expect(made).toBe(3);
    expect(new Date(from).toISOString()).toBe('2025-03-01T10:59:59.000Z');
    expect(checkpoint.saves).toEqual([]);
  });

  it('sends again, keeping the first mark, when the look-up finds nothing', async () => {
    const checkpoint = memoryCheckpoint({ sentAt: '2025-03-01T11:00:00.000Z' });
    const find = () => Promise.resolve(null);
    const made = await sendOnce({ checkpoint, now, find, send: () => Promise.resolve(9) });
    expect(made).toBe(9);
    expect(checkpoint.values.sentAt).toBe('2025-03-01T11:00:00.000Z');
  });

  it('clears the mark when the platform refused with a 4xx, and keeps it after a 5xx or a lost answer', async () => {
    const cases = [[refusal(429), false], [refusal(502), true], [new Error('socket hang up'), true]] as const;
    for (const [failure, kept] of cases) {
      const checkpoint = memoryCheckpoint();
      const send = () => Promise.reject(failure);
      await expect(sendOnce({ checkpoint, now, find: () => Promise.resolve(null), send })).rejects.toBe(failure);
      expect(unansweredSendAt(checkpoint) !== null).toBe(kept);
    }
  });

  it('asks the platform\'s own rule which failures prove nothing was made', async () => {
    const checkpoint = memoryCheckpoint();
    const failure = new Error('GraphQL BAD_USER_INPUT');
    const send = () => Promise.reject(failure);
    await expect(sendOnce({ checkpoint, now, find: () => Promise.resolve(null), send, refused: (e) => e === failure }))
      .rejects.toBe(failure);
    expect(unansweredSendAt(checkpoint)).toBeNull();
  });
});

describe('pickSent', () => {
  it('prefers the item with the content as sent, else the only one', () => {
    const items = [{ id: 1, body: 'edited' }, { id: 2, body: 'sent' }];
    expect(pickSent(items, (item) => item.body === 'sent')?.id).toBe(2);
    expect(pickSent([{ id: 1, body: 'edited' }], (item) => item.body === 'sent')?.id).toBe(1);
    expect(pickSent([{ id: 1, body: 'a' }, { id: 3, body: 'b' }], (item) => item.body === 'sent')).toBeNull();
    expect(pickSent([], () => true)).toBeNull();
  });
});
