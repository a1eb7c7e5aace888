import { describe, expect, it } from 'vitest';
import { connectionPolicyFor } from '../net/connection-policy.ts';
import { checkedAdapters, platformModuleProblems } from './check-platform-modules.ts';
import type { PlatformAdapter } from './kit/platform-adapter.ts';
import type { PlatformModule } from './kit/platform-module.ts';
import { removalNotBuilt } from './kit/platform-removal.ts';
import { mastodonModule } from './mastodon/module.ts';
import { PlatformApps } from './platform-apps.ts';
import { allPlatformModules, createAdapters } from './platforms.ts';

const options = { timeoutMs: 1000, userHosts: connectionPolicyFor(true) };
const apps = new PlatformApps({}, options);
const appOf = (identifier: string) => apps.context(identifier).app;

function withTools(module: PlatformModule, tools: PlatformAdapter['tools']): PlatformModule {
  return {
    ...module,
    createAdapter: (adapterOptions, app) => ({ ...module.createAdapter(adapterOptions, app), tools }),
  };
}

describe('platform module check', () => {
  it('passes for the shipped list', () => {
    expect(createAdapters(options, appOf).size).toBeGreaterThan(0);
    expect(new Set(allPlatformModules().map((module) => module.definition.identifier)).size).toBe(27);
  });

  it('refuses a declared tool without an implementation, naming the platform and the tool', () => {
    const declaring: PlatformModule = {
      ...mastodonModule,
      definition: {
        ...mastodonModule.definition,
        tools: [{ methodName: 'instanceRules', description: 'Reads the instance rules', dataSchema: [] }],
      },
    };
    const broken = withTools(declaring, {});
    expect(() => checkedAdapters([broken], options, appOf)).toThrow(
      'Mastodon (mastodon) declares the tool "instanceRules" but its adapter does not implement it',
    );
  });

  it('refuses an implemented tool that is not declared, and an adapter listed under another platform', () => {
    const extra = withTools(mastodonModule, {
      instanceLimits: () => Promise.resolve({}),
      boards: () => Promise.resolve([]),
    });
    const adapter = extra.createAdapter(options, appOf('mastodon'));
    const adapters = new Map([['mastodon', { ...adapter, provider: 'x' }]]);
    expect(platformModuleProblems([extra], adapters)).toEqual([
      'Mastodon (mastodon) is served by the adapter of "x"',
      'Mastodon (mastodon) implements the tool "boards" that its definition does not declare',
    ]);
  });

  it('refuses removal declared without remove, and remove without the declaration', () => {
    const declaring: PlatformModule = { ...mastodonModule, createAdapter: (adapterOptions, app) => {
      const { remove: _remove, ...adapter } = mastodonModule.createAdapter(adapterOptions, app);
      return adapter;
    } };
    const undeclared: PlatformModule = { ...mastodonModule, removal: removalNotBuilt('a test') };
    const adapters = (module: PlatformModule) =>
      new Map([['mastodon', module.createAdapter(options, appOf('mastodon'))]]);
    expect(platformModuleProblems([declaring], adapters(declaring))).toEqual([
      'Mastodon (mastodon) declares it removes published items but its adapter has no remove',
    ]);
    expect(platformModuleProblems([undeclared], adapters(undeclared))).toEqual([
      'Mastodon (mastodon) implements remove but does not declare removal as supported',
    ]);
  });

  it('has every room declare whether it removes, and remove exactly where it declares support', () => {
    const adapters = createAdapters(options, appOf);
    for (const module of allPlatformModules()) {
      const { identifier } = module.definition;
      expect(module.removal, identifier).toBeDefined();
      expect(adapters.get(identifier)?.remove !== undefined, identifier).toBe(module.removal?.supported === true);
    }
    const removing = allPlatformModules().filter((module) => module.removal?.supported === true);
    expect(removing.map((module) => module.definition.identifier).sort()).toEqual(
      ['bluesky', 'devto', 'discord', 'dribbble', 'facebook', 'gmb', 'hashnode', 'lemmy', 'linkedin', 'linkedin-page',
        'mastodon', 'nostr', 'pinterest', 'reddit', 'slack', 'telegram', 'threads', 'vk', 'warpcast', 'wordpress', 'x',
        'youtube'],
    );
  });
});
