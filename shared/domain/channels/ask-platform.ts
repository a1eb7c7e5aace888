import { DomainError } from '../../errors.ts';
import { PlatformError } from '../../platforms/kit/platform-error.ts';

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
