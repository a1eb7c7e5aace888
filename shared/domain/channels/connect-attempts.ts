import { Types } from 'mongoose';
import { z } from 'zod';
import { randomCredential, type SecretBox } from '../../crypto/secret-box.ts';
import type { Database } from '../../db/database.ts';
import { DomainError } from '../../errors.ts';
import type { VerifiedAccount } from '../../platforms/kit/platform-connect.ts';

/** How long a user has between starting a connection and finishing it (authorize, pick or form). */
export const connectAttemptMs = 10 * 60 * 1000;

export interface AttemptScope {
  organizationId: string;
  provider: string;
  refreshChannelId: string | null;
  customer: string | null;
}

export interface AuthorizeAttempt extends AttemptScope {
  serverUrl: string | null;
  redirectUri: string;
  codeVerifier: string | null;
}

export interface PickAttempt extends AttemptScope {
  accounts: VerifiedAccount[];
}

const storedAccounts = z.array(
  z.object({
    accountId: z.string(),
    name: z.string(),
    username: z.string().nullable(),
    picture: z.string().nullable(),
    instanceUrl: z.string().nullable(),
    accessToken: z.string(),
    refreshToken: z.string().nullable(),
    expiresAt: z.iso
      .datetime()
      .nullable()
      .transform((value) => (value === null ? null : new Date(value))),
  }),
);

type Phase = 'authorize' | 'pick' | 'credentials';

/** How messages name each phase's key, and what its holder can do once it is spent. */
const phaseWords: Record<Phase, { what: string; again: string }> = {
  authorize: { what: 'this authorization', again: 'start connecting again' },
  pick: { what: 'this choice', again: 'start connecting again' },
  // Whoever holds a form link got it from an API client's app, which asks SPS for another.
  credentials: { what: 'this connect link', again: 'ask the app that sent you here for a new link' },
};

interface AttemptDeps {
  db: Database;
  secrets: SecretBox;
  now: () => Date;
}

async function store(
  deps: AttemptDeps,
  phase: Phase,
  fields: Record<string, unknown>,
): Promise<string> {
  const key = randomCredential();
  await deps.db.connectAttempts.create({
    ...fields,
    keyDigest: deps.secrets.digest(key),
    phase,
    expiresAt: new Date(deps.now().getTime() + connectAttemptMs),
  });
  return key;
}

/** Records the start of an authorization; the key returned is the OAuth `state`. */
export function startAuthorizeAttempt(deps: AttemptDeps, attempt: AuthorizeAttempt): Promise<string> {
  return store(deps, 'authorize', {
    organizationId: new Types.ObjectId(attempt.organizationId),
    provider: attempt.provider,
    refreshChannelId: attempt.refreshChannelId,
    customer: attempt.customer,
    serverUrl: attempt.serverUrl,
    redirectUri: attempt.redirectUri,
    codeVerifierSealed: attempt.codeVerifier === null ? null : deps.secrets.seal(attempt.codeVerifier),
  });
}

/** Keeps the authorized accounts (tokens sealed) until the user picks one; returns the pick key. */
export function startPickAttempt(deps: AttemptDeps, attempt: PickAttempt): Promise<string> {
  return store(deps, 'pick', {
    organizationId: new Types.ObjectId(attempt.organizationId),
    provider: attempt.provider,
    refreshChannelId: attempt.refreshChannelId,
    customer: attempt.customer,
    accountsSealed: deps.secrets.seal(JSON.stringify(attempt.accounts)),
  });
}

/**
 * Records a form link for a platform that signs in with credentials; the key returned goes in
 * the link, and whoever holds it connects a channel of this organization, signed in or not.
 */
export function startCredentialsAttempt(deps: AttemptDeps, attempt: AttemptScope): Promise<string> {
  return store(deps, 'credentials', {
    organizationId: new Types.ObjectId(attempt.organizationId),
    provider: attempt.provider,
    refreshChannelId: attempt.refreshChannelId,
    customer: attempt.customer,
  });
}

/** Who may finish an attempt: the provider of the callback URL, and the signed-in organization if any. */
export interface AttemptClaim {
  key: string;
  provider: string;
  /** The dashboard's organization when a user is signed in: another organization's attempt is refused. */
  organizationId: string | null;
}

const invalid = (message: string) => new DomainError('invalid_state', message);

async function findValid(deps: AttemptDeps, phase: Phase, claim: AttemptClaim) {
  const attempt = await deps.db.connectAttempts.findOne({ keyDigest: deps.secrets.digest(claim.key) }).lean();
  const { what, again } = phaseWords[phase];
  if (attempt === null || attempt.phase !== phase || attempt.provider !== claim.provider) {
    throw invalid(`${what} is unknown or was already used; ${again}`);
  }
  if (attempt.expiresAt.getTime() <= deps.now().getTime()) {
    throw invalid(`${what} expired (it lasts 10 minutes); ${again}`);
  }
  if (claim.organizationId !== null && attempt.organizationId.toString() !== claim.organizationId) {
    throw invalid(`${what} was started for another organization; switch to it and start again`);
  }
  return attempt;
}

/**
 * Takes the attempt once: of two callers racing with the same key, only the one whose delete
 * removed the document goes on (a conditional update is not atomic on FerretDB; a delete by
 * `_id` is), and nothing is saved for the other.
 */
async function consume(deps: AttemptDeps, phase: Phase, claim: AttemptClaim) {
  const attempt = await findValid(deps, phase, claim);
  const { deletedCount } = await deps.db.connectAttempts.deleteOne({ _id: attempt._id });
  if (deletedCount !== 1) throw invalid(`this connection was already finished; ${phaseWords[phase].again}`);
  return attempt;
}

function scopeOf(attempt: {
  organizationId: Types.ObjectId;
  provider: string;
  refreshChannelId?: string | null;
  customer?: string | null;
}): AttemptScope {
  return {
    organizationId: attempt.organizationId.toString(),
    provider: attempt.provider,
    refreshChannelId: attempt.refreshChannelId ?? null,
    customer: attempt.customer ?? null,
  };
}

export async function consumeAuthorizeAttempt(deps: AttemptDeps, claim: AttemptClaim): Promise<AuthorizeAttempt> {
  const attempt = await consume(deps, 'authorize', claim);
  return {
    ...scopeOf(attempt),
    serverUrl: attempt.serverUrl ?? null,
    redirectUri: attempt.redirectUri ?? '',
    codeVerifier:
      attempt.codeVerifierSealed === null || attempt.codeVerifierSealed === undefined
        ? null
        : deps.secrets.open(attempt.codeVerifierSealed),
  };
}

function accountsOf(deps: AttemptDeps, sealed: string | null | undefined): VerifiedAccount[] {
  if (sealed === null || sealed === undefined) return [];
  return storedAccounts.parse(JSON.parse(deps.secrets.open(sealed)));
}

/** The accounts offered, without taking the attempt: the picker page can be reloaded. */
export async function readPickAttempt(deps: AttemptDeps, claim: AttemptClaim): Promise<PickAttempt> {
  const attempt = await findValid(deps, 'pick', claim);
  return { ...scopeOf(attempt), accounts: accountsOf(deps, attempt.accountsSealed) };
}

export async function consumePickAttempt(deps: AttemptDeps, claim: AttemptClaim): Promise<PickAttempt> {
  const attempt = await consume(deps, 'pick', claim);
  return { ...scopeOf(attempt), accounts: accountsOf(deps, attempt.accountsSealed) };
}

/** What a form link connects, without taking it: a refused password leaves the link usable. */
export async function readCredentialsAttempt(deps: AttemptDeps, claim: AttemptClaim): Promise<AttemptScope> {
  return scopeOf(await findValid(deps, 'credentials', claim));
}

export async function consumeCredentialsAttempt(deps: AttemptDeps, claim: AttemptClaim): Promise<AttemptScope> {
  return scopeOf(await consume(deps, 'credentials', claim));
}

/** Maintenance: attempts nobody finished. */
export async function deleteExpiredConnectAttempts(db: Database, now: Date): Promise<number> {
  const result = await db.connectAttempts.deleteMany({ expiresAt: { $lte: now } });
  return result.deletedCount;
}
