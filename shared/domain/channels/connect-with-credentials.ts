import { z } from 'zod';
import type { SecretBox } from '../../crypto/secret-box.ts';
import type { CacheInvalidation } from '../../cache/invalidation-bus.ts';
import type { Database } from '../../db/database.ts';
import { DomainError, notFound } from '../../errors.ts';
import type {
  ConnectContext, CredentialField, CredentialsConnect, VerifiedAccount,
} from '../../platforms/kit/platform-connect.ts';
import type { PlatformModule } from '../../platforms/kit/platform-module.ts';
import { findPlatformModule } from '../../platforms/platforms.ts';
import { organizationExists } from '../organizations/organizations.ts';
import { askPlatform } from './ask-platform.ts';
import { saveConnectedChannel } from './save-connected-channel.ts';

export interface CredentialsConnectRequest {
  organizationId: string;
  provider: string;
  /** What was typed or sent, keyed by the platform's field keys; checked here (other keys are ignored). */
  values: Readonly<Record<string, unknown>>;
  refreshChannelId?: string | null;
  customer?: string | null;
  /**
   * Runs once the platform accepted the values, just before the save: a form link is taken
   * here, so a refused password does not use it up and, of two sends racing, only one saves.
   */
  beforeSave?: () => Promise<void>;
}

/** A platform that signs in with typed values, as its module declares it. */
export interface CredentialsPlatform {
  module: PlatformModule;
  connect: CredentialsConnect;
}

/** The platform of a credentials connect; unknown platforms and OAuth ones are not found here. */
export function credentialsPlatform(provider: string): CredentialsPlatform {
  const module = findPlatformModule(provider);
  if (module === undefined) throw notFound(`platform ${JSON.stringify(provider)}`);
  const { connect } = module;
  if (connect.kind === 'credentials') return { module, connect };
  const { identifier, displayName } = module.definition;
  throw new DomainError(
    'not_found',
    `${displayName} is not connected with credentials: send its user to the URL GET /social/${identifier} answers`,
  );
}

/** Longest value SPS accepts in a credentials field: a key, a URL, a token are far shorter. */
const maxValueLength = 4096;

function fieldSchema(field: CredentialField) {
  const required = `${field.label} is required`;
  // A missing key is "required" like an empty field, not zod's "expected string, received undefined".
  const text = z
    .string({ error: (issue) => (issue.input === undefined ? required : `${field.label} must be text`) })
    .trim()
    .max(maxValueLength, `${field.label} is too long`);
  return field.optional === true ? text.optional() : text.min(1, required);
}

/**
 * The platform's fields as one zod schema, checked before anything is sent to the platform by
 * every way in (the dashboard's form, POST /integrations/:id, `npm run channel:add`). Values
 * are trimmed; optional fields left empty are dropped.
 */
export function credentialValuesSchema(connect: CredentialsConnect) {
  const shape = Object.fromEntries(connect.fields.map((field) => [field.key, fieldSchema(field)]));
  const given = (entry: [string, unknown]): entry is [string, string] =>
    typeof entry[1] === 'string' && entry[1] !== '';
  return z.object(shape).transform((values): Record<string, string> => Object.fromEntries(
    Object.entries(values).filter(given),
  ));
}

function checkedValues(connect: CredentialsConnect, values: Readonly<Record<string, unknown>>) {
  const parsed = credentialValuesSchema(connect).safeParse(values);
  if (parsed.success) return parsed.data;
  const details = parsed.error.issues.map((issue) => ({
    path: issue.path.map(String).join('.'),
    message: issue.message,
  }));
  const listed = details.map((detail) => detail.message).join('; ');
  throw new DomainError('validation_failed', `some fields are missing or invalid: ${listed}`, details);
}

/**
 * Connects (or reconnects in place) a channel of a platform that signs in with typed values:
 * the values are checked against the platform and the profile read before anything is saved.
 */
export async function connectWithCredentials(
  deps: { db: Database; secrets: SecretBox; caches: CacheInvalidation },
  connect: CredentialsConnect,
  context: ConnectContext,
  request: CredentialsConnectRequest,
): Promise<{ id: string; created: boolean; account: VerifiedAccount }> {
  if (!(await organizationExists(deps.db, request.organizationId)))
    throw notFound(`organization ${request.organizationId}`);
  const values = checkedValues(connect, request.values);
  const account = await askPlatform(() => connect.verify(values, context));
  await request.beforeSave?.();
  const saved = await saveConnectedChannel(
    deps,
    { ...account, provider: request.provider },
    {
      organizationId: request.organizationId,
      refreshChannelId: request.refreshChannelId ?? null,
      customer: request.customer ?? null,
    },
  );
  return { ...saved, account };
}
