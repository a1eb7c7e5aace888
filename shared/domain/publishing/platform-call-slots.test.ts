import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startScriptedPublishing,
  type ScriptedPublishing,
  type Step,
} from '../../../test/support/scripted-publishing.ts';
import { PlatformError } from '../../platforms/kit/platform-error.ts';
import { PlatformCallSlots } from './platform-call-slots.ts';
import { publishThread, type PublishRunDeps } from './publish-thread.ts';

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

describe('publishing within the process\'s platform-call slots', () => {
  let publishing: ScriptedPublishing;

  beforeAll(async () => {
    publishing = await startScriptedPublishing(2);
  });
  afterAll(async () => {
    await publishing.close();
  });

  it('never has more publishes calling platforms at once than slots, a thread holding one to its end', async () => {
    const { deps, platform, thread } = publishing;
    let calling = 0;
    let most = 0;
    const step: Step = async (input) => {
      calling += 1;
      most = Math.max(most, calling);
      await sleep(30);
      calling -= 1;
      if (input.content === 'Slots refused') {
        throw new PlatformError({ kind: 'permanent', provider: 'mastodon', message: 'refused' });
      }
      return { releaseId: `id-${input.content}`, releaseURL: `https://p/${input.content}` };
    };
    const posts = [['Slots refused'], ['Slots 1/2', 'Slots 2/2'], ['Slots a'], ['Slots b'], ['Slots c'], ['Slots d']];
    const roots = await Promise.all(posts.map((texts) => thread(texts, texts.length - 1)));
    platform.steps = posts.flat().map(() => step);

    const outcomes = await Promise.allSettled(roots.map((rootId) => publishThread(deps, rootId)));
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', ...posts.slice(1).map(() => 'fulfilled')]);
    expect(platform.calls).toHaveLength(7);
    // A slot a refused call held is given back: the five others were published with it gone.
    expect(most).toBe(2);
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
    const oneSlot = { ...blocking, callSlots: new PlatformCallSlots(1) };
    const [first, second] = await Promise.all([thread(['Given back 1'], 0), thread(['Given back 2'], 0)]);

    const firstRun = publishThread(oneSlot, first);
    await saving.done;
    const abandon = new AbortController();
    const secondRun = await Promise.race([
      publishThread(oneSlot, second),
      sleep(5_000, 'still waiting for the slot', { signal: abandon.signal }),
    ]);
    abandon.abort();
    expect(secondRun).toMatchObject({ kind: 'published' });
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
    const oneSlot = { ...observed, callSlots: new PlatformCallSlots(1, 50) };
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
});
