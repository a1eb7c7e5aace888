import type { SecretBox } from '../../crypto/secret-box.ts';
import type { CacheInvalidation } from '../../cache/invalidation-bus.ts';
import type { Database } from '../../db/database.ts';
import { DomainError, notFound, type ErrorDetail } from '../../errors.ts';
import type { ConnectContext, CredentialsConnect, VerifiedAccount } from '../../platforms/kit/platform-connect.ts';
import { PlatformError } from '../../platforms/kit/platform-error.ts';
import { organizationExists } from '../organizations/organizations.ts';
import { saveConnectedChannel } from './save-connected-channel.ts';

export interface CredentialsConnectRequest {
  organizationId: string;
  provider: string;
  values: Readonly<Record<string, string>>;
  refreshChannelId?: string | null;
  customer?: string | null;
}

/** Longest value SPS accepts in a credentials field: a key, a URL, a token are far shorter. */
const maxValueLength = 4096;

function checkedValues(
  connect: CredentialsConnect,
  values: Readonly<Record<string, string>>,
): Record<string, string> {
  const details: ErrorDetail[] = [];
  const result: Record<string, string> = {};
  for (const field of connect.fields) {
    const value = (values[field.key] ?? '').trim();
    if (value === '' && field.optional !== true)
      details.push({ path: field.key, message: `${field.label} is required` });
    else if (value.length > maxValueLength) details.push({ path: field.key, message: `${field.label} is too long` });
    else if (value !== '') result[field.key] = value;
  }
  if (details.length > 0) throw new DomainError('validation_failed', 'some fields are missing or invalid', details);
  return result;
}

/**
 * Runs a platform step of a connect flow; the platform's refusal becomes `connect_refused`
 * (422) with the platform's own message, its unavailability `platform_error` (502): in
 * neither case is anything saved.
 */
export async function askPlatform<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (!(error instanceof PlatformError)) throw error;
    if (error.kind === 'retryable') {
      throw new DomainError('platform_error', `the platform could not be reached: ${error.message}`, undefined, {
        cause: error,
      });
    }
    throw new DomainError('connect_refused', error.message, undefined, { cause: error });
  }
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
