import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { browserUrl, openInBrowser } from './browser.ts';
import { CliError } from './cli-error.ts';
import { saveCredentials, type StoredCredentials } from './credentials-store.ts';
import { say } from './output.ts';

const deviceCodeSchema = z.object({
  device_code: z.string().min(1),
  user_code: z.string().min(1),
  verification_uri: z.string().min(1),
  expires_in: z.number().positive(),
  /** Seconds between polls; RFC 8628 says 5 when the server does not say. */
  interval: z.number().nonnegative().default(5),
});
type DeviceCode = z.infer<typeof deviceCodeSchema>;

const tokenSchema = z.object({ access_token: z.string().min(1), api_url: z.string().min(1), organization_id: z.string() });
const tokenErrorSchema = z.object({
  error: z.string(),
  error_description: z.string().optional(),
  /** Sent with slow_down by our auth server: the interval it now expects. */
  interval: z.number().positive().optional(),
});

const expiredMessage = 'the code expired before the login was approved (expired_token); run `sps auth:login` again';

/** What the contract's refusals mean to the user. */
const refusals = new Map<string, string>([
  ['expired_token', expiredMessage],
  ['access_denied', 'the login was denied in the browser (access_denied)'],
]);

/** RFC 8628 section 3.5: after slow_down, every later poll waits this much longer. */
const slowDownStepSeconds = 5;
/**
 * Polls in a row that may fail on the way (no answer, or a 5xx from a proxy) before giving up.
 * Retrying is safe: the auth server hands the same token to the same device code again for a
 * while, so an answer lost after the login was approved is not a lost login.
 */
const transientFailuresAllowed = 3;

/** The auth server could not be reached, or its answer did not arrive. */
class AuthServerUnreachable extends CliError {}

async function postJson(url: string, body: unknown): Promise<{ status: number; json: unknown }> {
  let response: Response;
  let text: string;
  try {
    response = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json' }, body: JSON.stringify(body) });
    text = await response.text();
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
    const reason = cause instanceof Error ? cause.message : String(cause);
    throw new AuthServerUnreachable(`could not reach the auth server at ${new URL(url).origin}: ${reason}`);
  }
  try {
    return { status: response.status, json: JSON.parse(text) as unknown };
  } catch {
    throw new CliError(`the auth server answered HTTP ${response.status} without JSON from ${url}`);
  }
}

async function requestDeviceCode(authServer: string): Promise<DeviceCode> {
  const { status, json } = await postJson(`${authServer}/device/code`, {});
  const parsed = deviceCodeSchema.safeParse(json);
  if (status === 200 && parsed.success) return parsed.data;
  const refusal = tokenErrorSchema.safeParse(json);
  const reason = refusal.success ? `: ${refusal.data.error_description ?? refusal.data.error}` : '';
  throw new CliError(`the auth server did not start a login (HTTP ${status} from ${authServer}/device/code)${reason}`);
}

/** The verification page with the code filled in, so the user only has to confirm it; http(s) only. */
export function verificationUrl(code: Pick<DeviceCode, 'verification_uri' | 'user_code'>): string {
  const url = browserUrl(code.verification_uri);
  url.searchParams.set('code', code.user_code);
  return url.toString();
}

/** One poll's answer, or why it failed in a way worth retrying (no answer, or HTTP 5xx). */
type PollAnswer = { status: number; json: unknown; failure: null } | { failure: string };

async function pollOnce(authServer: string, deviceCode: string): Promise<PollAnswer> {
  try {
    const answer = await postJson(`${authServer}/device/token`, { device_code: deviceCode });
    if (answer.status >= 500) return { failure: `the auth server answered HTTP ${answer.status}` };
    return { ...answer, failure: null };
  } catch (error) {
    if (error instanceof AuthServerUnreachable) return { failure: error.message };
    throw error;
  }
}

/** Polls /device/token every `interval` seconds until the login is approved, refused or expired. */
async function pollForToken(authServer: string, code: DeviceCode): Promise<z.infer<typeof tokenSchema>> {
  const deadline = Date.now() + code.expires_in * 1000;
  let interval = code.interval;
  let failuresInARow = 0;
  for (;;) {
    const wait = Math.min(interval * 1000, Math.max(0, deadline - Date.now()));
    await sleep(wait);
    if (Date.now() >= deadline) throw new CliError(expiredMessage);
    const answer = await pollOnce(authServer, code.device_code);
    if (answer.failure !== null) {
      failuresInARow += 1;
      if (failuresInARow > transientFailuresAllowed) {
        throw new CliError(`${answer.failure}; gave up waiting for the login`);
      }
      say(`Polling failed (${answer.failure}); trying again in ${interval} seconds.`);
      continue;
    }
    failuresInARow = 0;
    if (answer.status === 200) {
      const token = tokenSchema.safeParse(answer.json);
      if (!token.success) throw new CliError('the auth server approved the login but did not send {access_token, api_url, organization_id}');
      return token.data;
    }
    const refusal = tokenErrorSchema.safeParse(answer.json);
    if (!refusal.success) {
      throw new CliError(`the auth server answered HTTP ${answer.status} while waiting for the login`);
    }
    if (refusal.data.error === 'authorization_pending') continue;
    if (refusal.data.error === 'slow_down') {
      interval = Math.max(interval + slowDownStepSeconds, refusal.data.interval ?? 0);
      continue;
    }
    const known = refusals.get(refusal.data.error);
    const description = refusal.data.error_description === undefined ? '' : `: ${refusal.data.error_description}`;
    throw new CliError(known ?? `the auth server refused the login (${refusal.data.error})${description}`);
  }
}

function describeDuration(seconds: number): string {
  return seconds < 120 ? `${Math.round(seconds)} seconds` : `${Math.round(seconds / 60)} minutes`;
}

/** The device flow (spec, "Command-line client"): show the code, open the browser, wait, save. */
export async function deviceLogin(options: { authServer: string; openBrowser: boolean }): Promise<{ file: string; credentials: StoredCredentials }> {
  const code = await requestDeviceCode(options.authServer);
  const url = verificationUrl(code);
  say(`Your one-time code: ${code.user_code}`);
  say(`Open this page to log in and confirm the code: ${url}`);
  if (options.openBrowser) {
    const failure = await openInBrowser(url, (reason) => { say(`Could not open a browser (${reason}); open the page above yourself.`); });
    if (failure !== null) say(`Could not open a browser (${failure}); open the page above yourself.`);
  }
  say(`Waiting for the login to be approved (the code is valid for ${describeDuration(code.expires_in)})...`);
  const token = await pollForToken(options.authServer, code);
  const credentials: StoredCredentials = { accessToken: token.access_token, apiUrl: token.api_url, organizationId: token.organization_id };
  const file = await saveCredentials(credentials);
  return { file, credentials };
}
