import type { AdapterOptions, PlatformAdapter } from './platform-adapter.ts';
import type { AppSetting, PlatformUrls } from './platform-app.ts';
import type { PlatformApp, PlatformConnect } from './platform-connect.ts';
import type { PlatformDefinition } from './platform-definition.ts';
import type { PlatformRemoval } from './platform-removal.ts';

/**
 * Everything SPS knows about one platform, as its room (`shared/platforms/<platform>/`) exports
 * it. The list in platforms.ts holds one per platform; which platforms publish, which can be
 * connected and how, which tools exist and the dashboard's Connect buttons all derive from it.
 */
export interface PlatformModule {
  /** Rules, settings schema and the tools the platform declares. */
  readonly definition: PlatformDefinition;
  /**
   * Where a platform with fixed hosts answers unless `<P>_API_URL` / `<P>_AUTH_URL` /
   * `<P>_TOKEN_URL` say otherwise. Absent for platforms whose server the user names.
   */
  readonly urls?: PlatformUrls;
  /**
   * What the operator must set for users to connect it (`<P>_<SETTING>`); OAuth platforms with
   * fixed hosts default to CLIENT_ID and CLIENT_SECRET, the others to nothing.
   */
  readonly requiredSettings?: readonly AppSetting[];
  /** How an organization connects its own account: every platform has one. */
  readonly connect: PlatformConnect;
  /**
   * Whether and how a published item can be taken off the platform (DELETE /posts/:id?onPlatform=true),
   * from the platform's documentation; its adapter has `remove` exactly when this says supported.
   * Absent only while a room has not declared it yet: answered as not built.
   */
  readonly removal?: PlatformRemoval;
  /**
   * Publishing, comments, tools: every platform has one. `app` is the operator's settings for this
   * platform: where its API answers (PlatformApps).
   */
  readonly createAdapter: (options: AdapterOptions, app: PlatformApp) => PlatformAdapter;
}
