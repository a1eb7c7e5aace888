import type { BenchStack } from './bench-stack.ts';
import type { JsonRequest } from './http-load.ts';
import { measureRateInTurns, type RateResult, type RateSettings } from './rate-in-turns.ts';

/**
 * `GET /integrations` requests/s as the benchmark organization (its channels listed), against
 * the bare server's one `find` on the same channel documents, in turns.
 */
export function measureIntegrationsRate(stack: BenchStack, settings: RateSettings): Promise<RateResult> {
  const sps = (): JsonRequest => ({
    method: 'GET', url: `${stack.apiUrl}/integrations`, headers: { Authorization: stack.main.apiKey }, body: '',
  });
  const bare = (): JsonRequest => ({ method: 'GET', url: `${stack.bareUrl}/integrations`, headers: {}, body: '' });
  return measureRateInTurns(sps, bare, settings);
}
