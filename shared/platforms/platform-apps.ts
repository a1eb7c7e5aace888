import type { RefreshTokens } from './kit/token-refresh.ts';
import type { ConnectionPolicy } from '../net/connection-policy.ts';
import { refreshAccessToken } from './kit/oauth2.ts';
import { appSettingValue, platformEnvPrefix, readPlatformApp, type AppSetting } from './kit/platform-app.ts';
import type { ConnectContext, PlatformApp } from './kit/platform-connect.ts';
import type { PlatformModule } from './kit/platform-module.ts';
import { allPlatformModules } from './platforms.ts';

/** A platform whose server the user names has no app URLs of its own. */
const noFixedHost: PlatformApp = {
  clientId: null,
  clientSecret: null,
  botToken: null,
  apiUrl: '',
  authUrl: '',
  tokenUrl: '',
};

/**
 * The operator's app registration of every platform, read once from the environment at
 * start-up (a malformed URL stops start-up naming the variable), and what connecting and
 * refreshing need from it.
 */
export class PlatformApps {
  readonly #apps = new Map<string, PlatformApp>();
  readonly #modules: readonly PlatformModule[];
  readonly #timeoutMs: number;
  readonly #userHosts: ConnectionPolicy;

  constructor(
    env: NodeJS.ProcessEnv,
    options: { timeoutMs: number; userHosts: ConnectionPolicy },
    modules: readonly PlatformModule[] = allPlatformModules(),
  ) {
    this.#modules = modules;
    this.#timeoutMs = options.timeoutMs;
    this.#userHosts = options.userHosts;
    for (const module of modules) {
      const { identifier } = module.definition;
      const app = module.urls === undefined ? { ...noFixedHost } : readPlatformApp(identifier, module.urls, env);
      this.#apps.set(identifier, app);
    }
  }

  context(identifier: string): ConnectContext {
    return { app: this.#apps.get(identifier) ?? noFixedHost, timeoutMs: this.#timeoutMs, userHosts: this.#userHosts };
  }

  /**
   * Whether users can connect this platform here: an OAuth platform with fixed hosts needs the
   * operator's client id and secret; credentials and per-server registrations need nothing.
   */
  isConfigured(module: PlatformModule): boolean {
    const app = this.#apps.get(module.definition.identifier) ?? noFixedHost;
    return PlatformApps.requiredSettings(module).every((setting) => appSettingValue(app, setting) !== null);
  }

  static requiredSettings(module: PlatformModule): readonly AppSetting[] {
    if (module.requiredSettings !== undefined) return module.requiredSettings;
    const connect = module.connect;
    const ownApp = connect.kind === 'oauth2' && connect.registerClient === undefined;
    return ownApp ? ['CLIENT_ID', 'CLIENT_SECRET'] : [];
  }

  /** Environment variables an operator sets to make `module` connectable. */
  static missingSettings(module: PlatformModule): string[] {
    const prefix = platformEnvPrefix(module.definition.identifier);
    return PlatformApps.requiredSettings(module).map((setting) => `${prefix}_${setting}`);
  }

  /** How a channel of `provider` renews its access token, or undefined where tokens do not expire. */
  refresherFor(provider: string): RefreshTokens | undefined {
    const module = this.#modules.find((candidate) => candidate.definition.identifier === provider);
    const connect = module?.connect;
    if (connect === undefined) return undefined;
    const context = this.context(provider);
    if (connect.kind === 'credentials') {
      const refresh = connect.refresh;
      return refresh === undefined
        ? undefined
        : (request) => refresh(request.refreshToken, request.instanceUrl, { ...context, now: () => request.now });
    }
    const ownRefresh = connect.refresh;
    if (ownRefresh !== undefined)
      return (request) => ownRefresh(request.refreshToken, { ...context, now: () => request.now });
    const { app } = context;
    if (connect.registerClient !== undefined || app.clientId === null) return undefined;
    const oauth = connect.provider(app);
    if (!oauth.refreshable) return undefined;
    const client = { clientId: app.clientId, clientSecret: app.clientSecret };
    return (request) =>
      refreshAccessToken(oauth, client, request.refreshToken, { timeoutMs: this.#timeoutMs, now: request.now });
  }
}
