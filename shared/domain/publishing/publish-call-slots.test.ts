import { setTimeout as sleep } from 'node:timers/promises';
import type { Types } from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startScriptedPublishing,
  type ScriptedPublishing,
  type Step,
} from '../../../test/support/scripted-publishing.ts';
import { PlatformError } from '../../platforms/kit/platform-error.ts';
import { newObjectKey } from '../../storage/object-key.ts';
import { PlatformCallSlots, type CallSlotSizes } from './platform-call-slots.ts';
import type { PublishRunDeps } from './publish-deps.ts';
import { publishThread } from './publish-thread.ts';

/**
 * The publish's dependencies with `around` run around every `method` call of the posts
 * collection: a test stops a publish at a chosen read or write.
 */
function aroundPosts(
  deps: PublishRunDeps,
  method: 'findOne' | 'updateOne',
  around: (filter: unknown, call: () => Promise<unknown>) => Promise<unknown>,
): PublishRunDeps {
  const posts = new Proxy(deps.db.posts.collection, {
    get: (target, key) => {
      const value = Reflect.get(target, key, target) as unknown;
      if (key !== method || typeof value !== 'function') return value;
      return (filter: unknown, ...rest: unknown[]) =>
        around(filter, () => (value as (...args: unknown[]) => Promise<unknown>).call(target, filter, ...rest));
    },
  });
  const model = new Proxy(deps.db.posts, {
    get: (target, key) => (key === 'collection' ? posts : Reflect.get(target, key, target) as unknown),
  });
  return { ...deps, db: { ...deps.db, posts: model } };
}

/** A promise and the function that settles it. */
function signal(): { done: Promise<void>; give: () => void } {
  let give = (): void => undefined;
  const done = new Promise<void>((resolve) => { give = resolve; });
  return { done, give };
}

/** The run's outcome, or 'still waiting for the slot' if it has not ended within a few seconds. */
async function unlessStuck<T>(run: Promise<T>): Promise<T | 'still waiting for the slot'> {
  const abandon = new AbortController();
  const stuck = sleep(5_000, 'still waiting for the slot' as const, { signal: abandon.signal });
  const outcome = await Promise.race([run, stuck]);
  abandon.abort();
  return outcome;
}

describe('publishing within the process\'s platform-call slots', () => {
  let publishing: ScriptedPublishing;
  /** Publishes of this file calling the scripted platform now, per channel, and the most at once. */
  const calling = new Map<string, number>();
  let most = 0;
  let mostOnOneChannel = 0;

  /** A step that counts who is calling while it waits for `until`. */
  const counted = (until: () => Promise<void>): Step => async (input) => {
    const channel = input.channel.channelId;
    calling.set(channel, (calling.get(channel) ?? 0) + 1);
    most = Math.max(most, [...calling.values()].reduce((sum, count) => sum + count, 0));
    mostOnOneChannel = Math.max(mostOnOneChannel, calling.get(channel) ?? 0);
    await until();
    calling.set(channel, (calling.get(channel) ?? 1) - 1);
    if (input.content.endsWith('refused')) {
      throw new PlatformError({ kind: 'permanent', provider: 'mastodon', message: 'refused' });
    }
    return { releaseId: `id-${input.content}`, releaseURL: `https://p/${input.content}` };
  };

  /** The scripted world's dependencies with slots of these sizes. */
  const sized = (sizes: CallSlotSizes, deps = publishing.deps): PublishRunDeps => ({
    ...deps, callSlots: new PlatformCallSlots(sizes),
  });

  /** A ready video of the organization's library, as a part refers to it. */
  async function video(): Promise<{ id: string }> {
    const { ctx, organizationId } = publishing;
    const stored = await ctx.db.media.create({
      organizationId, name: 'clip.mp4', mimeType: 'video/mp4', size: 1_000, status: 'ready',
      storageKey: newObjectKey('mp4'),
    });
    return { id: stored._id.toString() };
  }

  beforeAll(async () => {
    publishing = await startScriptedPublishing(2);
  });
  afterAll(async () => {
    await publishing.close();
  });

  it('never has more publishes calling at once than slots, nor two of one channel, a thread holding one', async () => {
    const { deps, platform, thread, channel } = publishing;
    most = 0;
    mostOnOneChannel = 0;
    const [one, two, three] = await Promise.all([channel(), channel(), channel()]);
    const posts: [string[], Types.ObjectId][] = [
      [['Slots refused'], one], [['Slots 1/2', 'Slots 2/2'], two], [['Slots a'], three],
      [['Slots b'], one], [['Slots c'], two], [['Slots d'], three],
    ];
    const roots = await Promise.all(posts.map(([texts, on]) => thread(texts, texts.length - 1, on)));
    platform.steps = posts.flatMap(([texts]) => texts).map(() => counted(() => sleep(30)));

    const outcomes = await Promise.allSettled(roots.map((rootId) => publishThread(deps, rootId)));
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', ...posts.slice(1).map(() => 'fulfilled')]);
    expect(platform.calls).toHaveLength(7);
    // A slot a refused call held is given back: the five others were published with it gone.
    expect(most).toBe(2);
    expect(mostOnOneChannel).toBe(1);
  });

  it('has as many publishes of different channels calling at once as there are slots', async () => {
    const { deps, platform, thread, channel } = publishing;
    most = 0;
    const channels = await Promise.all(Array.from({ length: 8 }, () => channel()));
    const roots = await Promise.all(channels.map((on, index) => thread([`Wide ${index}`], 0, on)));
    const allCalling = signal();
    platform.steps = roots.map(() => counted(async () => {
      if (most === 8) allCalling.give();
      await allCalling.done;
    }));

    const wide = sized({ calls: 8, uploads: 1, platforms: { calls: { mastodon: 8 } } }, deps);
    const outcomes = await Promise.all(roots.map((rootId) => publishThread(wide, rootId)));
    expect(outcomes.map((outcome) => outcome.kind)).toEqual(roots.map(() => 'published'));
    expect(most).toBe(8);
  });

  it('serializes the channels of one platform account', async () => {
    const { deps, platform, thread, channel } = publishing;
    mostOnOneChannel = 0;
    let accountCalling = 0;
    let mostOnAccount = 0;
    const [first, second] = await Promise.all([channel('account-7'), channel('account-7')]);
    const roots = await Promise.all([thread(['Account 1'], 0, first), thread(['Account 2'], 0, second)]);
    platform.steps = roots.map(() => async (input) => {
      accountCalling += 1;
      mostOnAccount = Math.max(mostOnAccount, accountCalling);
      await sleep(30);
      accountCalling -= 1;
      return { releaseId: `id-${input.content}`, releaseURL: `https://p/${input.content}` };
    });
    const outcomes = await Promise.all(roots.map((rootId) => publishThread(deps, rootId)));
    expect(outcomes.map((outcome) => outcome.kind)).toEqual(['published', 'published']);
    expect(mostOnAccount).toBe(1);
  });

  it('sends a busy account\'s surplus back to the queue instead of holding the process\'s jobs', async () => {
    const { deps, platform, thread, channel } = publishing;
    const [busy, other] = await Promise.all([channel('busy-account'), channel('quiet-account')]);
    const backlog = await Promise.all(Array.from({ length: 6 }, (_, index) => thread([`Busy ${index}`], 0, busy)));
    const quiet = await thread(['Quiet one'], 0, other);
    // The busy account's call holds its turn until the surplus went back (2 s at most, so a process
    // that keeps it fails below rather than hangs): on a busy machine a 40 ms call could otherwise end
    // before the last threads are read, and the turn it frees would let one more wait in the process.
    const surplusSentBack = signal();
    let sentBack = 0;
    platform.steps = [...backlog, quiet].map(() => async (input) => {
      if (input.content.startsWith('Busy')) await Promise.race([surplusSentBack.done, sleep(2_000)]);
      await sleep(40);
      return { releaseId: `id-${input.content}`, releaseURL: `https://p/${input.content}` };
    });
    const slots = sized({ calls: 8, uploads: 1, perAccount: 1, accountWaiters: 2 }, deps);
    const started = Date.now();
    const outcomes = await Promise.all([...backlog, quiet].map(async (rootId) => {
      const outcome = await publishThread(slots, rootId);
      sentBack += outcome.kind === 'waiting' ? 1 : 0;
      if (sentBack === 3) surplusSentBack.give();
      return outcome;
    }));
    // Of the busy account's six, one calls and two wait their turn in the process; the other three
    // (whichever read their thread last) come back later from the queue. The quiet account goes on.
    expect(outcomes.at(-1)?.kind).toBe('published');
    const waiting = outcomes.flatMap((outcome) => (outcome.kind === 'waiting' ? [outcome.until.getTime()] : []));
    expect(waiting).toHaveLength(3);
    for (const until of waiting) expect(until).toBeGreaterThanOrEqual(started + 1_000);
    const sent = platform.calls.map((call) => call.content);
    expect(sent).toContain('Quiet one');
    expect(sent.filter((content) => content.startsWith('Busy'))).toHaveLength(3);
  });

  it('sends a video in a slot of its own: a full pool of text posts does not hold it back', async () => {
    const { deps, platform, thread, channel } = publishing;
    const slots = sized({ calls: 1, uploads: 1 }, deps);
    const clip = await video();
    const [textChannel, videoChannel] = await Promise.all([channel(), channel()]);
    const text = await thread(['Holds the text slot'], 0, textChannel);
    const withVideo = await thread(['A video'], 0, videoChannel);
    await publishing.ctx.db.posts.updateOne({ _id: withVideo }, { $set: { media: [clip] } });
    const textCalling = signal();
    const unblock = signal();
    platform.steps = [async (input) => {
      textCalling.give();
      await unblock.done;
      return { releaseId: `id-${input.content}`, releaseURL: 'https://p/text' };
    }];

    const textRun = publishThread(slots, text);
    await textCalling.done;
    expect(slots.callSlots.held('calls')).toBe(1);
    expect(await unlessStuck(publishThread(slots, withVideo))).toMatchObject({ kind: 'published' });
    expect(platform.calls.at(-1)?.content).toBe('A video');
    unblock.give();
    expect(await textRun).toMatchObject({ kind: 'published' });
  });

  it('gives the slot back once the platform answered: the next publish calls while the last one saves', async () => {
    const { deps, thread } = publishing;
    const saving = signal();
    const unblock = signal();
    // The first result's write waits: the first publish is then past its platform call.
    let saves = 0;
    const blocking = aroundPosts(deps, 'updateOne', async (_filter, call) => {
      saves += 1;
      if (saves === 1) {
        saving.give();
        await unblock.done;
      }
      return call();
    });
    const oneSlot = sized({ calls: 1, uploads: 1 }, blocking);
    const [first, second] = await Promise.all([thread(['Given back 1'], 0), thread(['Given back 2'], 0)]);

    const firstRun = publishThread(oneSlot, first);
    await saving.done;
    expect(await unlessStuck(publishThread(oneSlot, second))).toMatchObject({ kind: 'published' });
    unblock.give();
    expect(await firstRun).toMatchObject({ kind: 'published' });
    expect(await deps.db.posts.findById(first).lean()).toMatchObject({ state: 'PUBLISHED' });
  });

  it('reads the thread again after a long wait for a slot: a post deleted meanwhile is not sent', async () => {
    const { ctx, deps, platform, thread } = publishing;
    const [first, second] = await Promise.all([thread(['Holds the slot'], 0), thread(['Deleted meanwhile'], 0)]);
    const secondRead = signal();
    const observed = aroundPosts(deps, 'findOne', async (filter, call) => {
      const answer = await call();
      if (JSON.stringify(filter).includes(second)) secondRead.give();
      return answer;
    });
    const oneSlot = sized({ calls: 1, uploads: 1, readsFreshMs: 50 }, observed);
    const calling = signal();
    const unblock = signal();
    platform.steps = [async (input) => {
      calling.give();
      await unblock.done;
      return { releaseId: `id-${input.content}`, releaseURL: 'https://p/held' };
    }];

    const firstRun = publishThread(oneSlot, first);
    await calling.done;
    const secondRun = publishThread(oneSlot, second);
    await secondRead.done;
    await ctx.db.posts.updateOne({ _id: second }, { $set: { deletedAt: new Date() } });
    await sleep(100);
    unblock.give();

    expect(await firstRun).toMatchObject({ kind: 'published' });
    expect(await secondRun).toEqual({ kind: 'skipped', reason: 'the post was deleted' });
    expect(platform.calls.map((call) => call.content)).not.toContain('Deleted meanwhile');
  });

  it('waits for an upload slot instead when the thread read again now sends a video', async () => {
    const { ctx, deps, platform, thread, channel } = publishing;
    const clip = await video();
    const [holder, edited] = await Promise.all([channel(), channel()]);
    const first = await thread(['Holds the text slot too'], 0, holder);
    const second = await thread(['Given a video meanwhile'], 0, edited);
    const secondRead = signal();
    const observed = aroundPosts(deps, 'findOne', async (filter, call) => {
      const answer = await call();
      if (JSON.stringify(filter).includes(second)) secondRead.give();
      return answer;
    });
    const slots = sized({ calls: 1, uploads: 1, readsFreshMs: 50 }, observed);
    const calling = signal();
    const unblock = signal();
    let uploadsHeld = -1;
    platform.steps = [
      async (input) => {
        calling.give();
        await unblock.done;
        return { releaseId: `id-${input.content}`, releaseURL: 'https://p/held' };
      },
      (input) => {
        uploadsHeld = slots.callSlots.held('uploads');
        expect(input.media.map((media) => media.kind)).toEqual(['video']);
        return Promise.resolve({ releaseId: `id-${input.content}`, releaseURL: 'https://p/video' });
      },
    ];

    const firstRun = publishThread(slots, first);
    await calling.done;
    const secondRun = publishThread(slots, second);
    await secondRead.done;
    await ctx.db.posts.updateOne({ _id: second }, { $set: { media: [clip] } });
    await sleep(100);
    unblock.give();

    expect(await firstRun).toMatchObject({ kind: 'published' });
    expect(await secondRun).toMatchObject({ kind: 'published' });
    expect(uploadsHeld).toBe(1);
  });
});
