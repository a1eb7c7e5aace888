import { describe, expect, it } from 'vitest';
import {
  holdJobsForSlots,
  PlatformCallSlots,
  publishJobsHeld,
  type CallSlot,
  type CallSlotRequest,
} from './platform-call-slots.ts';

/** Lets every grant made so far reach its waiter (grants resolve promises; nothing here waits on time). */
const settle = (): Promise<void> => new Promise((resolve) => { setImmediate(resolve); });

/** The slots asked for so far, and which of them were given, in the order they were. */
class Asked {
  readonly given: string[] = [];
  readonly #slots: PlatformCallSlots;
  readonly #held = new Map<string, CallSlot>();

  constructor(slots: PlatformCallSlots) {
    this.#slots = slots;
  }

  ask(name: string, request: Partial<CallSlotRequest> = {}, turn?: number): void {
    const wanted: CallSlotRequest = { account: name, platform: 'mastodon', pool: 'calls', ...request };
    void this.#slots.take(wanted, turn).then((slot) => {
      this.given.push(name);
      this.#held.set(name, slot);
    });
  }

  release(name: string): void {
    const slot = this.#held.get(name);
    if (slot === undefined) throw new Error(`${name} holds no slot`);
    slot.release();
  }
}

describe('the platform-call slots of a worker process', () => {
  it('serves waiters by their organization\'s turn, then in the order they asked', async () => {
    const asked = new Asked(new PlatformCallSlots({ calls: 1, uploads: 1, perAccount: 5 }));
    asked.ask('holder', {}, 1);
    asked.ask('backlog 7', {}, 7);
    asked.ask('backlog 8', {}, 8);
    asked.ask('first of another', {}, 1);
    asked.ask('backlog 2', {}, 2);
    asked.ask('first of a third', {}, 1);
    await settle();
    expect(asked.given).toEqual(['holder']);
    for (const name of ['holder', 'first of another', 'first of a third', 'backlog 2', 'backlog 7']) {
      asked.release(name);
      await settle();
    }
    expect(asked.given).toEqual([
      'holder', 'first of another', 'first of a third', 'backlog 2', 'backlog 7', 'backlog 8',
    ]);
  });

  it('gives an account as many slots as its bound (PUBLISH_ACCOUNT_CONCURRENCY), then makes it wait', async () => {
    const asked = new Asked(new PlatformCallSlots({ calls: 10, uploads: 10, perAccount: 2 }));
    for (const name of ['a1', 'a2', 'a3']) asked.ask(name, { account: 'a' });
    asked.ask('b', { account: 'b' });
    await settle();
    expect(asked.given).toEqual(['a1', 'a2', 'b']);

    asked.release('a1');
    await settle();
    expect(asked.given).toEqual(['a1', 'a2', 'b', 'a3']);
  });

  it('turns a busy account\'s publish away at once when as many of it wait as it may, not others\'', async () => {
    const slots = new PlatformCallSlots({ calls: 10, uploads: 10, perAccount: 1, accountWaiters: 2 });
    const asked = new Asked(slots);
    for (const name of ['a1', 'a2', 'a3']) asked.ask(name, { account: 'a' });
    await settle();
    expect(asked.given).toEqual(['a1']);
    const request: CallSlotRequest = { account: 'a', platform: 'mastodon', pool: 'calls' };
    expect(await slots.takeUnlessCrowded(request)).toBeNull();
    // Two waiting, at the platform's default pace of a second each, and this one after them.
    expect(slots.crowdedWaitMs(request)).toBe(3_000);
    const other = await slots.takeUnlessCrowded({ ...request, account: 'b' });
    expect(other).not.toBeNull();
    other?.release();

    asked.release('a1');
    await settle();
    // One waiting now: room for another.
    const again = slots.takeUnlessCrowded(request);
    asked.release('a2');
    await settle();
    expect(asked.given).toEqual(['a1', 'a2', 'a3']);
    asked.release('a3');
    expect(await again).not.toBeNull();
  });

  it('gives an account one slot at a time, across both pools, while other accounts go on', async () => {
    const asked = new Asked(new PlatformCallSlots({ calls: 10, uploads: 10 }));
    asked.ask('a text', { account: 'a' });
    asked.ask('a video', { account: 'a', pool: 'uploads' });
    asked.ask('a second text', { account: 'a' });
    asked.ask('b', { account: 'b' });
    await settle();
    expect(asked.given).toEqual(['a text', 'b']);

    asked.release('a text');
    await settle();
    expect(asked.given).toEqual(['a text', 'b', 'a video']);
    asked.release('a video');
    await settle();
    expect(asked.given).toEqual(['a text', 'b', 'a video', 'a second text']);
  });

  it('holds a platform to its bound: the operator\'s, its definition\'s, else half the pool', async () => {
    const slots = new PlatformCallSlots({ calls: 10, uploads: 4, platforms: { calls: { bluesky: 2 } } });
    expect(slots.platformLimit('bluesky', 'calls')).toBe(2);
    // Telegram's room: about 30 messages a second for the one bot (definition.ts).
    expect(slots.platformLimit('telegram', 'calls')).toBe(7);
    expect(slots.platformLimit('mastodon', 'calls')).toBe(5);
    expect(slots.platformLimit('mastodon', 'uploads')).toBe(2);
    expect(new PlatformCallSlots({ calls: 3, uploads: 1 }).platformLimit('discord', 'calls')).toBe(3);

    const asked = new Asked(slots);
    for (const name of ['sky 1', 'sky 2', 'sky 3']) asked.ask(name, { platform: 'bluesky' });
    asked.ask('toot', { platform: 'mastodon' });
    await settle();
    expect(asked.given).toEqual(['sky 1', 'sky 2', 'toot']);
    expect(slots.held('calls', 'bluesky')).toBe(2);
    asked.release('sky 1');
    await settle();
    expect(asked.given).toEqual(['sky 1', 'sky 2', 'toot', 'sky 3']);
  });

  it('keeps uploads in a pool of their own: a full one holds back no text post, nor the reverse', async () => {
    const slots = new PlatformCallSlots({ calls: 1, uploads: 1 });
    const asked = new Asked(slots);
    asked.ask('video 1', { pool: 'uploads' });
    asked.ask('video 2', { pool: 'uploads' });
    asked.ask('text 1');
    asked.ask('text 2');
    asked.ask('video 3', { pool: 'uploads' });
    await settle();
    expect(asked.given).toEqual(['video 1', 'text 1']);
    expect([slots.held('uploads'), slots.held('calls'), slots.waiting]).toEqual([1, 1, 3]);

    asked.release('text 1');
    await settle();
    expect(asked.given).toEqual(['video 1', 'text 1', 'text 2']);
    asked.release('video 1');
    await settle();
    expect(asked.given).toEqual(['video 1', 'text 1', 'text 2', 'video 2']);
  });

  it('serves waiters in the order they asked, letting one whose account is busy be passed', async () => {
    const slots = new PlatformCallSlots({ calls: 2, uploads: 1, platforms: { calls: { mastodon: 2 } } });
    const asked = new Asked(slots);
    asked.ask('a1', { account: 'a' });
    asked.ask('x', { account: 'x' });
    asked.ask('a2', { account: 'a' });
    asked.ask('b', { account: 'b' });
    asked.ask('c', { account: 'c' });
    await settle();
    expect(asked.given).toEqual(['a1', 'x']);

    // One slot free: a2 asked first but its account is busy, so b, the next that fits, goes.
    asked.release('x');
    await settle();
    expect(asked.given).toEqual(['a1', 'x', 'b']);
    // a's slot free: a2, waiting longest, goes before c.
    asked.release('a1');
    await settle();
    expect(asked.given).toEqual(['a1', 'x', 'b', 'a2']);
    asked.release('b');
    await settle();
    expect(asked.given).toEqual(['a1', 'x', 'b', 'a2', 'c']);
  });

  it('frees a slot once however often it is released', async () => {
    const slots = new PlatformCallSlots({ calls: 2, uploads: 1, platforms: { calls: { mastodon: 2 } } });
    const asked = new Asked(slots);
    for (const name of ['one', 'two', 'three', 'four']) asked.ask(name);
    await settle();
    asked.release('one');
    asked.release('one');
    await settle();
    expect(asked.given).toEqual(['one', 'two', 'three']);
    expect(slots.held('calls')).toBe(2);
  });

  it('refuses to start with a bound for a platform it does not know', () => {
    expect(() => new PlatformCallSlots({ calls: 5, uploads: 1, platforms: { uploads: { mastodn: 2 } } }))
      .toThrow('per-platform concurrency names unknown platforms: mastodn');
  });

  it('has the worker hold two jobs per calls slot, one per upload slot in use and one for the next video', () => {
    expect(publishJobsHeld({ calls: 200, uploads: 20 })).toBe(401);
    expect(publishJobsHeld({ calls: 200, uploads: 20 }, 7)).toBe(408);
    expect(publishJobsHeld({ calls: 200, uploads: 20 }, 20)).toBe(420);
  });

  it('keeps the worker\'s concurrency in step with the upload slots held', async () => {
    const slots = new PlatformCallSlots({ calls: 5, uploads: 2, perAccount: 5 });
    const worker = { concurrency: 0 };
    holdJobsForSlots(worker, slots, { calls: 5, uploads: 2 });
    expect(worker.concurrency).toBe(11);
    const text = await slots.take({ account: 'a', platform: 'mastodon', pool: 'calls' });
    expect(worker.concurrency).toBe(11);
    const first = await slots.take({ account: 'b', platform: 'youtube', pool: 'uploads' });
    expect(worker.concurrency).toBe(12);
    const second = await slots.take({ account: 'c', platform: 'tiktok', pool: 'uploads' });
    expect(worker.concurrency).toBe(12);
    first.release();
    first.release();
    expect(worker.concurrency).toBe(12);
    second.release();
    text.release();
    expect(worker.concurrency).toBe(11);
  });
});
