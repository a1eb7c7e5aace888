import { describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { VkPacer } from './vk-pacer.ts';

describe('pacing one token\'s VK calls', () => {
  it('lets three calls go at once and holds the fourth until the first answer is a window old', async () => {
    const pacer = new VkPacer(3, 300);
    const started: number[] = [];
    const answered: number[] = [];
    const call = async () => {
      started.push(Date.now());
      await sleep(50);
      answered.push(Date.now());
    };
    for (let index = 0; index < 4; index += 1) await pacer.paced('token-a', call);

    expect((started[2] ?? 0) - (started[0] ?? 0)).toBeLessThan(250);
    expect(started[3] ?? 0).toBeGreaterThanOrEqual((answered[0] ?? 0) + 300);
  });

  it('paces each token on its own', async () => {
    const pacer = new VkPacer(1, 1_000);
    await pacer.paced('token-a', () => Promise.resolve());
    const before = Date.now();
    await pacer.paced('token-b', () => Promise.resolve());

    expect(Date.now() - before).toBeLessThan(500);
  });
});
