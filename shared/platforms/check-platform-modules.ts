import type { AdapterOptions, PlatformAdapter } from './kit/platform-adapter.ts';
import type { PlatformApp } from './kit/platform-connect.ts';
import type { PlatformModule } from './kit/platform-module.ts';

/**
 * What is wrong with the list of platform modules, one sentence each: a publishing platform
 * must implement exactly the tools its definition declares (the api offers the declared ones
 * through /integration-trigger, the worker runs the implemented ones), `remove` exactly when its
 * module declares removal supported (the api queues removals by the declaration), and an adapter
 * must say it serves the platform it is listed under.
 */
export function platformModuleProblems(
  modules: readonly PlatformModule[],
  adapters: ReadonlyMap<string, PlatformAdapter>,
): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const { definition, removal } of modules) {
    const name = `${definition.displayName} (${definition.identifier})`;
    if (seen.has(definition.identifier)) problems.push(`${name} is listed twice`);
    seen.add(definition.identifier);
    const adapter = adapters.get(definition.identifier);
    if (adapter === undefined) continue;
    if (adapter.provider !== definition.identifier)
      problems.push(`${name} is served by the adapter of "${adapter.provider}"`);
    const declared = new Set(definition.tools.map((tool) => tool.methodName));
    const implemented = new Set(Object.keys(adapter.tools));
    for (const tool of declared) {
      if (!implemented.has(tool))
        problems.push(`${name} declares the tool "${tool}" but its adapter does not implement it`);
    }
    for (const tool of implemented) {
      if (!declared.has(tool))
        problems.push(`${name} implements the tool "${tool}" that its definition does not declare`);
    }
    if (removal?.supported === true && adapter.remove === undefined)
      problems.push(`${name} declares it removes published items but its adapter has no remove`);
    if (removal?.supported !== true && adapter.remove !== undefined)
      problems.push(`${name} implements remove but does not declare removal as supported`);
  }
  return problems;
}

/** Builds every adapter and refuses to go on when a platform module is inconsistent. */
export function checkedAdapters(
  modules: readonly PlatformModule[],
  options: AdapterOptions,
  appOf: (identifier: string) => PlatformApp,
): ReadonlyMap<string, PlatformAdapter> {
  const adapters = new Map(
    modules.map((module) => {
      const adapter = module.createAdapter(options, appOf(module.definition.identifier));
      return [module.definition.identifier, adapter] as const;
    }),
  );
  const problems = platformModuleProblems(modules, adapters);
  if (problems.length > 0) throw new Error(`the platform modules are inconsistent:\n- ${problems.join('\n- ')}`);
  return adapters;
}
