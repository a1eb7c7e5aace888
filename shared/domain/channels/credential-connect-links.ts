import { DomainError, notFound } from '../../errors.ts';
import { findOwnedChannel } from './channels.ts';
import type { ConnectDeps } from './connect-channel.ts';
import {
  consumeCredentialsAttempt,
  readCredentialsAttempt,
  startCredentialsAttempt,
  type AttemptClaim,
} from './connect-attempts.ts';
import { connectWithCredentials, credentialsPlatform } from './connect-with-credentials.ts';

/**
 * Form links: what `GET /social/:provider` answers for a platform that signs in with credentials.
 * The link holds a single-use key bound to the organization whose API key asked (and to the
 * refresh and customer it asked with), so the person the API client sends there needs no
 * dashboard account, and a signed-in user's selected organization cannot take the channel.
 */

export interface CredentialsLinkRequest {
  organizationId: string;
  provider: string;
  /** Reconnect this channel in place. */
  refreshChannelId: string | null;
  customer: string | null;
}

/** Who holds a link: the platform of the page it was opened on, and its key. */
export interface CredentialsLinkClaim {
  provider: string;
  key: string;
}

/** The outcome of a form sent through a link, as the connect pages show a saved channel. */
export interface LinkConnected {
  kind: 'saved';
  id: string;
  created: boolean;
  name: string;
  organizationId: string;
}

/** The session does not count: the link alone says whose channel this is. */
const attemptClaim = (claim: CredentialsLinkClaim): AttemptClaim => ({ ...claim, organizationId: null });

/** A link to the platform's form, valid 10 minutes, for this organization only. */
export async function startCredentialsLink(
  deps: ConnectDeps,
  request: CredentialsLinkRequest,
): Promise<{ url: string }> {
  const { identifier, displayName } = credentialsPlatform(request.provider).module.definition;
  if (request.refreshChannelId !== null) {
    // Refused now, as for OAuth platforms, rather than after the person has typed a password.
    const channel = await findOwnedChannel(deps.db, request.organizationId, request.refreshChannelId);
    if (channel.provider !== identifier)
      throw notFound(`${displayName} channel ${JSON.stringify(request.refreshChannelId)}`);
  }
  const key = await startCredentialsAttempt(deps, { ...request, provider: identifier });
  const url = new URL(`${deps.frontendUrl}/channels/connect/${identifier}`);
  url.searchParams.set('key', key);
  return { url: url.toString() };
}

/** What the link's page tells its visitor: which organization the channel will belong to. */
export async function readCredentialsLink(
  deps: ConnectDeps,
  claim: CredentialsLinkClaim,
): Promise<{ organizationName: string }> {
  const scope = await readCredentialsAttempt(deps, attemptClaim(claim));
  const organization = await deps.db.organizations.findById(scope.organizationId, { name: 1 }).lean();
  if (organization === null)
    throw new DomainError('invalid_state', 'the organization of this connect link no longer exists');
  return { organizationName: organization.name };
}

/**
 * The form sent through a link: the values are checked against the platform, then the link is
 * taken (once) and the channel saved into the link's organization, whoever is signed in.
 */
export async function connectThroughLink(
  deps: ConnectDeps,
  claim: CredentialsLinkClaim,
  values: Readonly<Record<string, unknown>>,
): Promise<LinkConnected> {
  const { module, connect } = credentialsPlatform(claim.provider);
  const { identifier } = module.definition;
  const scope = await readCredentialsAttempt(deps, attemptClaim(claim));
  const connected = await connectWithCredentials(deps, connect, deps.platforms.context(identifier), {
    organizationId: scope.organizationId,
    provider: identifier,
    values,
    refreshChannelId: scope.refreshChannelId,
    customer: scope.customer,
    beforeSave: async () => {
      await consumeCredentialsAttempt(deps, attemptClaim(claim));
    },
  });
  const { id, created, account } = connected;
  return { kind: 'saved', id, created, name: account.name, organizationId: scope.organizationId };
}
