import { z } from 'zod';

/**
 * TRUST_PROXY_HOPS, read by the api and the auth server alike: how many reverse proxies stand in
 * front of the server, each appending the address it saw to X-Forwarded-For. The client address
 * is then that many entries from the right; anything further left was written by the client.
 */
export const trustProxyHopsSchema = z.coerce
  .number()
  .int('must be a whole number of proxies')
  .min(0, 'must be 0 (clients connect directly) or more')
  .max(10, 'more than 10 proxies in a row is surely a mistake')
  .default(0);

/** The old boolean, still accepted: `true` meant "behind a proxy", which is one hop. */
export const deprecatedTrustProxySchema = z
  .enum(['true', 'false'], 'deprecated: use TRUST_PROXY_HOPS (the number of proxies in front of the server)')
  .optional();

/**
 * The environment with TRUST_PROXY=true turned into TRUST_PROXY_HOPS=1 when TRUST_PROXY_HOPS
 * itself is unset (it wins when both are given). Any other TRUST_PROXY value is left for the
 * schema to report.
 */
export function withTrustProxyAlias(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  if (env.TRUST_PROXY_HOPS !== undefined || env.TRUST_PROXY !== 'true') return env;
  return { ...env, TRUST_PROXY_HOPS: '1' };
}
