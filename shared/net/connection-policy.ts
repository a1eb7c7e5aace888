import { isPublicAddress } from './address-policy.ts';

/** Which servers SPS may connect to on a user's behalf, and how it finds their addresses. */
export interface ConnectionPolicy {
  /** Whether an address may be contacted; every resolved address and every literal is checked. */
  isAllowedAddress: (address: string) => boolean;
  /** Plain http is for development and tests only. */
  allowHttp: boolean;
  /** Name resolution; replaceable so tests can play DNS (rebinding included). */
  resolve?: (hostname: string) => Promise<string[]>;
  /** Extra trusted CA (PEM) for private deployments and tests. */
  ca?: string;
}

export const publicAddressesOnly = (address: string): boolean => isPublicAddress(address);

/**
 * The policy a deployment runs with: public addresses over https, or (ALLOW_PRIVATE_NETWORK,
 * development and tests) anything, so simulators on loopback can be reached.
 */
export function connectionPolicyFor(allowPrivateNetwork: boolean): ConnectionPolicy {
  return allowPrivateNetwork
    ? { isAllowedAddress: () => true, allowHttp: true }
    : { isAllowedAddress: publicAddressesOnly, allowHttp: false };
}
