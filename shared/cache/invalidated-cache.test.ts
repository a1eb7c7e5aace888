import { describe, expect, it } from 'vitest';
import type { BusListener } from './invalidation-bus.ts';
import { InvalidatedCache, type Loaded } from './invalidated-cache.ts';

/** A bus whose liveness and messages the test decides. */
class ScriptedBus {
  live = true;
  readonly listeners: BusListener[] = [];
  listen(listener: BusListener): void {
    this.listeners.push(listener);
  }
}

const orgA = 'organization:aaaaaaaaaaaaaaaaaaaaaaaa' as const;
const orgB = 'organization:bbbbbbbbbbbbbbbbbbbbbbbb' as const;

function counted(value: string, topics: Loaded<string>['topics']) {
  const loader = {
    calls: 0,
    load: (): Promise<Loaded<string>> => {
      loader.calls += 1;
      return Promise.resolve({ value, topics });
    },
  };
  return loader;
}

describe('InvalidatedCache', () => {
  it('answers from memory until a topic it depends on changes', async () => {
    const bus = new ScriptedBus();
    const cache = new InvalidatedCache<string>(bus, { ttlMs: 60_000, maxEntries: 10 });
    const a = counted('A', [orgA]);
    const b = counted('B', [orgB]);
    const answers = [await cache.get('a', a.load), await cache.get('a', a.load), await cache.get('b', b.load)];
    expect(answers).toEqual(['A', 'A', 'B']);
    expect(a.calls).toBe(1);
    cache.invalidate(orgA);
    await cache.get('a', a.load);
    await cache.get('b', b.load);
    expect([a.calls, b.calls]).toEqual([2, 1]);
  });

  it('does not store a value read while a change was heard: it may predate the change', async () => {
    const bus = new ScriptedBus();
    const cache = new InvalidatedCache<string>(bus, { ttlMs: 60_000, maxEntries: 10 });
    let release: () => void = () => undefined;
    const slow = cache.get('a', () => new Promise((resolve) => {
      release = () => { resolve({ value: 'old', topics: [orgA] }); };
    }));
    cache.invalidate(orgA);
    release();
    expect(await slow).toBe('old');
    const fresh = counted('new', [orgA]);
    expect(await cache.get('a', fresh.load)).toBe('new');
    expect(fresh.calls).toBe(1);
  });

  it('neither answers nor stores while the bus is not live, and empties on invalidateAll', async () => {
    const bus = new ScriptedBus();
    const cache = new InvalidatedCache<string>(bus, { ttlMs: 60_000, maxEntries: 10 });
    const a = counted('A', [orgA]);
    await cache.get('a', a.load);
    bus.live = false;
    await cache.get('a', a.load);
    await cache.get('a', a.load);
    expect(a.calls).toBe(3);
    bus.live = true;
    cache.invalidateAll();
    expect(cache.size).toBe(0);
  });

  it('forgets entries after the TTL, keeps at most maxEntries, and never caches a miss', async () => {
    const bus = new ScriptedBus();
    let now = 0;
    const cache = new InvalidatedCache<string>(bus, { ttlMs: 1_000, maxEntries: 2, now: () => now });
    const a = counted('A', [orgA]);
    await cache.get('a', a.load);
    now = 999;
    await cache.get('a', a.load);
    now = 1_000;
    await cache.get('a', a.load);
    expect(a.calls).toBe(2);
    for (const key of ['b', 'c', 'd']) await cache.get(key, counted(key, [orgB]).load);
    expect(cache.size).toBe(2);
    let misses = 0;
    const miss = () => { misses += 1; return Promise.resolve(null); };
    expect([await cache.get('x', miss), await cache.get('x', miss)]).toEqual([null, null]);
    expect(misses).toBe(2);
  });

  it('caches nothing with a TTL of 0', async () => {
    const cache = new InvalidatedCache<string>(new ScriptedBus(), { ttlMs: 0, maxEntries: 10 });
    const a = counted('A', [orgA]);
    await cache.get('a', a.load);
    await cache.get('a', a.load);
    expect(a.calls).toBe(2);
  });
});
