import { createHmac } from 'node:crypto';

/** Header names of a delivery; receivers read them, so they are part of the contract (README). */
export const webhookHeaders = {
  signature: 'SPS-Signature',
  event: 'SPS-Event',
  delivery: 'SPS-Delivery',
} as const;

/**
 * The SPS-Signature value: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, keyed with
 * the endpoint's secret as written (`whsec_...`). The time is inside what is signed, so a
 * receiver that refuses old timestamps also refuses a captured delivery replayed later.
 */
export function signatureHeader(secret: string, body: string, at: Date): string {
  const timestamp = Math.floor(at.getTime() / 1000);
  const digest = createHmac('sha256', secret).update(`${timestamp}.${body}`, 'utf8').digest('hex');
  return `t=${timestamp},v1=${digest}`;
}
