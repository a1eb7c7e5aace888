import {
  finishAuthorization, startConnect, type ConnectDeps, type ConnectOutcome,
} from '../../shared/domain/channels/connect-channel.ts';
import { connectionPolicyFor } from '../../shared/net/connection-policy.ts';
import { PlatformApps } from '../../shared/platforms/platform-apps.ts';
import type { RunningStack } from './stack.ts';
import type { TestContext } from './test-context.ts';

/** What the room's OAuth flow needs, over the running stack's caches and `ctx`'s platform URLs. */
export function oauthConnectDeps(ctx: TestContext, stack: RunningStack, frontendUrl: string): ConnectDeps {
  const platforms = new PlatformApps(ctx.env, { timeoutMs: 5_000, userHosts: connectionPolicyFor(true) });
  return { db: ctx.db, secrets: ctx.secrets, caches: stack.caches, now: () => new Date(), platforms, frontendUrl };
}

/**
 * The organization's user connects `provider` through the room's OAuth flow: the start, the
 * platform's consent page (a simulator that approves at once and redirects), then the callback
 * with the code. Answers the callback's outcome: a saved channel, or accounts to pick from.
 */
export async function authorizeThroughConsent(
  deps: ConnectDeps,
  organizationId: string,
  provider: string,
): Promise<ConnectOutcome> {
  const request = { organizationId, provider, refreshChannelId: null, serverUrl: null, customer: null };
  const { url } = await startConnect(deps, request);
  const consent = await fetch(url, { redirect: 'manual' });
  const back = new URL(consent.headers.get('location') ?? '');
  const state = back.searchParams.get('state') ?? '';
  const code = back.searchParams.get('code');
  return finishAuthorization(deps, { provider, state, code, error: null, errorDescription: null, organizationId });
}
