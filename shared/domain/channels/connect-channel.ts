import type { SecretBox } from '../../crypto/secret-box.ts';
import type { CacheInvalidation } from '../../cache/invalidation-bus.ts';
import type { Database } from '../../db/database.ts';
import { DomainError, notFound } from '../../errors.ts';
import { authorizationUrl, exchangeAuthorizationCode } from '../../platforms/kit/oauth2.ts';
import type { OAuth2Client } from '../../platforms/kit/oauth2-provider.ts';
import type { ConnectContext, OAuthConnect, VerifiedAccount } from '../../platforms/kit/platform-connect.ts';
import type { PlatformModule } from '../../platforms/kit/platform-module.ts';
import { createPkcePair } from '../../platforms/kit/pkce.ts';
import { userServerUrl } from '../../platforms/kit/user-server-url.ts';
import { PlatformApps } from '../../platforms/platform-apps.ts';
import { findPlatformModule } from '../../platforms/platforms.ts';
import { sameAccount, sameServer, type AccountIdentity } from './account-identity.ts';
import { findOwnedChannel } from './channels.ts';
import {
  consumeAuthorizeAttempt,
  consumePickAttempt,
  readPickAttempt,
  startAuthorizeAttempt,
  startPickAttempt,
  type AttemptScope,
} from './connect-attempts.ts';
import { askPlatform } from './ask-platform.ts';
import { saveConnectedChannel } from './save-connected-channel.ts';
import { serverClient } from './server-clients.ts';

export interface ConnectDeps {
  db: Database;
  secrets: SecretBox;
  /** A reconnected channel may have a new name or text limit: api processes' caches hear of it. */
  caches: CacheInvalidation;
  now: () => Date;
  platforms: PlatformApps;
  /** Where the dashboard lives: forms, pickers and the OAuth callback are its pages. */
  frontendUrl: string;
}

export interface StartConnectRequest {
  organizationId: string;
  provider: string;
  /** Reconnect this channel in place. */
  refreshChannelId: string | null;
  /** The user's server, for platforms that run on many (Mastodon). */
  serverUrl: string | null;
  customer: string | null;
}

export function connectModule(provider: string): PlatformModule {
  const module = findPlatformModule(provider);
  if (module === undefined) throw notFound(`platform ${JSON.stringify(provider)}`);
  return module;
}

/** The dashboard page where this platform's form (credentials, or a server address) is filled in. */
export function connectFormUrl(frontendUrl: string, provider: string, refreshChannelId: string | null): string {
  const url = new URL(`${frontendUrl}/channels/connect/${provider}`);
  if (refreshChannelId !== null) url.searchParams.set('refresh', refreshChannelId);
  return url.toString();
}

/** Where the platform sends the user back; operators register it with each platform (README). */
export function callbackUrl(frontendUrl: string, provider: string): string {
  return `${frontendUrl}/channels/callback/${provider}`;
}

function notConfigured(module: PlatformModule): DomainError {
  const { displayName } = module.definition;
  const settings = PlatformApps.missingSettings(module).join(' and ');
  return new DomainError(
    'platform_not_configured',
    `${displayName} is not configured on this SPS installation: `
      + `its operator must set ${settings} (README, environment)`,
  );
}

/** The context of an exchange on the user's own server: its URLs take the fixed hosts' place. */
function serverContext(context: ConnectContext, serverUrl: string | null): ConnectContext {
  if (serverUrl === null) return context;
  return { ...context, app: { ...context.app, apiUrl: serverUrl, authUrl: serverUrl, tokenUrl: serverUrl } };
}

async function clientFor(
  deps: ConnectDeps,
  module: PlatformModule,
  connect: OAuthConnect,
  serverUrl: string | null,
  context: ConnectContext,
): Promise<OAuth2Client> {
  const { identifier } = module.definition;
  if (connect.registerClient !== undefined) {
    if (serverUrl === null)
      throw new DomainError('validation_failed', `${module.definition.displayName} needs the server address`);
    const where = { serverUrl, redirectUri: callbackUrl(deps.frontendUrl, identifier) };
    return serverClient(deps, identifier, connect, where, context);
  }
  const { clientId, clientSecret } = context.app;
  // Public clients (VK ID) need only their id; the module says which settings it requires.
  if (clientId === null || !deps.platforms.isConfigured(module)) throw notConfigured(module);
  return { clientId, clientSecret };
}

/** The account (on its server) of the channel `?refresh=` reconnects; null for a new channel. */
async function reconnectedAccount(
  deps: ConnectDeps,
  module: PlatformModule,
  scope: Pick<AttemptScope, 'organizationId' | 'refreshChannelId'>,
): Promise<AccountIdentity | null> {
  if (scope.refreshChannelId === null) return null;
  const channel = await findOwnedChannel(deps.db, scope.organizationId, scope.refreshChannelId);
  const { identifier, displayName } = module.definition;
  if (channel.provider !== identifier)
    throw notFound(`${displayName} channel ${JSON.stringify(scope.refreshChannelId)}`);
  return { accountId: channel.accountId ?? null, instanceUrl: channel.instanceUrl ?? null };
}

/**
 * `GET /social/:provider`: where to send the user. OAuth platforms get the authorization URL
 * (state bound to the organization, single use, 10 minutes); credentials platforms, and a
 * federated platform whose server is not yet known, the dashboard's form.
 */
export async function startConnect(deps: ConnectDeps, request: StartConnectRequest): Promise<{ url: string }> {
  const module = connectModule(request.provider);
  const { identifier, displayName } = module.definition;
  const reconnected = await reconnectedAccount(deps, module, request);
  const connect = module.connect;
  if (connect.kind === 'oauth2' && connect.registerClient === undefined && request.serverUrl !== null) {
    // Its exchange would run on the named server with the operator's client secret.
    throw new DomainError('validation_failed', `${displayName} runs on its own servers: it takes no server address`);
  }
  const formUrl = connectFormUrl(deps.frontendUrl, identifier, request.refreshChannelId);
  if (connect.kind === 'credentials') return { url: formUrl };
  if (connect.registerClient !== undefined && request.serverUrl === null) return { url: formUrl };
  if (!deps.platforms.isConfigured(module)) throw notConfigured(module);

  const context = deps.platforms.context(identifier);
  const serverUrl =
    request.serverUrl === null
      ? null
      : await askPlatform(() =>
          Promise.resolve(
            userServerUrl(request.serverUrl ?? '', context.userHosts, {
              provider: identifier,
              serverName: `the ${displayName} server`,
            }),
          ),
        );
  if (reconnected !== null && !sameServer(reconnected, { accountId: null, instanceUrl: serverUrl })) {
    // Said before SPS registers itself on a server the channel has nothing to do with.
    throw new DomainError(
      'account_mismatch',
      `this channel's account lives on ${reconnected.instanceUrl ?? 'another server'}: reconnect it there`,
    );
  }
  const exchangeContext = serverContext(context, serverUrl);
  const client = await clientFor(deps, module, connect, serverUrl, exchangeContext);
  const provider = connect.provider({
    ...exchangeContext.app,
    clientId: client.clientId,
    clientSecret: client.clientSecret,
  });
  const pkce = provider.pkce ? createPkcePair() : null;
  const redirectUri = callbackUrl(deps.frontendUrl, identifier);
  const state = await startAuthorizeAttempt(deps, {
    organizationId: request.organizationId,
    provider: identifier,
    refreshChannelId: request.refreshChannelId,
    customer: request.customer,
    serverUrl,
    redirectUri,
    codeVerifier: pkce?.verifier ?? null,
  });
  return { url: authorizationUrl(provider, client, { redirectUri, state, codeChallenge: pkce?.challenge ?? null }) };
}

export interface AuthorizationCallback {
  provider: string;
  state: string;
  code: string | null;
  /** `error` and `error_description` of a refused authorization (RFC 6749 4.1.2.1). */
  error: string | null;
  errorDescription: string | null;
  /**
   * The redirect's other query values. Only those the platform's provider declares in
   * `callbackParameters` (VK ID: `device_id`) reach the code exchange.
   */
  parameters?: Readonly<Record<string, string>>;
  /** The dashboard's signed-in organization, if any: another organization's state is refused. */
  organizationId: string | null;
}

/** The accounts offered by a picker, without their tokens. */
export interface OfferedAccount {
  accountId: string;
  name: string;
  username: string | null;
  picture: string | null;
}

export type ConnectOutcome =
  | { kind: 'saved'; id: string; created: boolean; name: string; organizationId: string }
  | { kind: 'pick'; key: string; accounts: OfferedAccount[]; organizationId: string };

const offered = (account: VerifiedAccount): OfferedAccount => ({
  accountId: account.accountId,
  name: account.name,
  username: account.username,
  picture: account.picture,
});

async function save(deps: ConnectDeps, scope: AttemptScope, account: VerifiedAccount): Promise<ConnectOutcome> {
  const saved = await saveConnectedChannel(deps, { ...account, provider: scope.provider }, scope);
  return { kind: 'saved', ...saved, name: account.name, organizationId: scope.organizationId };
}

/**
 * The platform's redirect back: the state is taken (once), the code exchanged, the profile and
 * targets read; one account is saved at once, several go to the picker. A refusal at any step
 * saves nothing and answers with the platform's own words.
 */
export async function finishAuthorization(
  deps: ConnectDeps,
  callback: AuthorizationCallback,
): Promise<ConnectOutcome> {
  const module = connectModule(callback.provider);
  const connect = module.connect;
  if (connect.kind !== 'oauth2') throw notFound(`an authorization of ${module.definition.displayName}`);
  const claim = { key: callback.state, provider: callback.provider, organizationId: callback.organizationId };
  const attempt = await consumeAuthorizeAttempt(deps, claim);
  const { displayName } = module.definition;
  if (callback.error !== null) {
    const reason = callback.errorDescription ?? callback.error;
    throw new DomainError('connect_refused', `${displayName} did not authorize SPS: ${reason}`);
  }
  if (callback.code === null || callback.code === '') {
    throw new DomainError('validation_failed', `${displayName} sent no authorization code back`);
  }
  const code = callback.code;
  const context = serverContext(deps.platforms.context(callback.provider), attempt.serverUrl);
  const client = await clientFor(deps, module, connect, attempt.serverUrl, context);
  const provider = connect.provider({ ...context.app, clientId: client.clientId, clientSecret: client.clientSecret });
  const declared: Record<string, string> = {};
  for (const name of provider.callbackParameters ?? []) {
    const value = callback.parameters?.[name];
    if (value === undefined || value === '') {
      throw new DomainError('validation_failed', `${displayName} sent no ${name} back`);
    }
    declared[name] = value;
  }
  const exchange = {
    code,
    redirectUri: attempt.redirectUri,
    codeVerifier: attempt.codeVerifier,
    state: callback.state,
    callback: declared,
  };
  const options = {
    timeoutMs: context.timeoutMs,
    now: deps.now(),
    ...(attempt.serverUrl === null ? {} : { userHost: context.userHosts }),
  };
  const tokens = await askPlatform(() => exchangeAuthorizationCode(provider, client, exchange, options));
  const { pick, accounts } = await askPlatform(() => connect.accounts(tokens, context));
  if (accounts.length === 0) {
    throw new DomainError('connect_refused', `${displayName} gave access to no account SPS can publish to`);
  }
  const reconnecting = await reconnectedAccount(deps, module, attempt);
  const same = reconnecting === null ? undefined : accounts.find((account) => sameAccount(reconnecting, account));
  const chosen = same ?? (pick && accounts.length > 1 ? undefined : accounts[0]);
  if (chosen !== undefined) return save(deps, attempt, chosen);
  const key = await startPickAttempt(deps, { ...attempt, accounts });
  return { kind: 'pick', key, accounts: accounts.map(offered), organizationId: attempt.organizationId };
}

export interface PickClaim {
  provider: string;
  key: string;
  organizationId: string | null;
}

/** What the picker shows; reading does not use the choice up. */
export async function offeredAccounts(deps: ConnectDeps, claim: PickClaim): Promise<OfferedAccount[]> {
  const attempt = await readPickAttempt(deps, claim);
  return attempt.accounts.map(offered);
}

/** The user's choice among the offered accounts becomes (or reconnects) a channel. */
export async function finishPick(deps: ConnectDeps, claim: PickClaim, accountId: string): Promise<ConnectOutcome> {
  const offeredNow = await readPickAttempt(deps, claim);
  if (!offeredNow.accounts.some((account) => account.accountId === accountId)) {
    throw new DomainError('validation_failed', 'choose one of the accounts offered');
  }
  const attempt = await consumePickAttempt(deps, claim);
  const chosen = attempt.accounts.find((account) => account.accountId === accountId);
  if (chosen === undefined) throw new DomainError('validation_failed', 'choose one of the accounts offered');
  return save(deps, attempt, chosen);
}
