import { expect } from 'vitest';
import { connectionPolicyFor, type ConnectionPolicy } from '../../../shared/net/connection-policy.ts';
import type { ConnectContext, PlatformApp } from '../../../shared/platforms/kit/platform-connect.ts';
import { PlatformError } from '../../../shared/platforms/kit/platform-error.ts';

export interface TestContextOptions extends Partial<PlatformApp> {
  /** Default: public addresses over https only, as in production. */
  userHosts?: ConnectionPolicy;
  timeoutMs?: number;
}

/**
 * What a room's connect step gets at run time, pointed at a simulator: the app's URLs default to
 * `apiUrl`, as platform-app.ts defaults them from the environment.
 */
export function testConnectContext(options: TestContextOptions = {}): ConnectContext {
  const apiUrl = options.apiUrl ?? '';
  return {
    app: {
      clientId: options.clientId ?? null,
      clientSecret: options.clientSecret ?? null,
      botToken: options.botToken ?? null,
      apiUrl,
      authUrl: options.authUrl ?? apiUrl,
      tokenUrl: options.tokenUrl ?? apiUrl,
    },
    timeoutMs: options.timeoutMs ?? 2_000,
    userHosts: options.userHosts ?? connectionPolicyFor(false),
  };
}

/** The PlatformError a platform step must fail with. */
export async function platformFailure(promise: Promise<unknown>): Promise<PlatformError> {
  const error: unknown = await promise.then(() => null, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(PlatformError);
  return error as PlatformError;
}
