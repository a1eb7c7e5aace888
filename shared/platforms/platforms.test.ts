import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { allPlatforms, findPlatform } from './platforms.ts';
import { platformGroups } from './kit/platform-definition.ts';

describe('platform registry', () => {
  it('holds the 27 platforms of the contract with the spec\'s group counts', () => {
    const platforms = allPlatforms();
    expect(platforms).toHaveLength(27);
    expect(new Set(platforms.map((platform) => platform.identifier)).size).toBe(27);
    const counts = Object.fromEntries(platformGroups.map((group) => [group, platforms.filter((platform) => platform.group === group).length]));
    expect(counts).toEqual({ social: 12, video: 2, community: 5, design: 2, blogging: 4, business: 2 });
  });

  it.each(allPlatforms().map((platform) => [platform.identifier, platform] as const))('%s is complete and exports its settings as JSON Schema', (_identifier, platform) => {
    expect(platform.displayName).not.toBe('');
    expect(platform.textLimit).toBeGreaterThan(0);
    expect(platform.rules.length).toBeGreaterThan(20);
    expect(platform.mediaRules.length).toBeGreaterThan(5);
    for (const tool of platform.tools) {
      expect(tool.methodName).toMatch(/^[a-z][A-Za-z0-9]*$/);
      expect(tool.description).not.toBe('');
    }
    if (platform.settings !== null) expect(z.toJSONSchema(platform.settings, { io: 'input', unrepresentable: 'any' })).toMatchObject({ type: 'object' });
  });

  it('matches the contract\'s text limits and reply modes for a sample', () => {
    expect(findPlatform('x')).toMatchObject({ textLimit: 280, replies: 'thread', textCounting: 'x-weighted' });
    expect(findPlatform('youtube')).toMatchObject({ group: 'video', replies: 'none' });
    expect(findPlatform('listmonk')).toMatchObject({ group: 'business', textLimit: 100_000_000 });
    expect(findPlatform('myspace')).toBeUndefined();
  });
});
