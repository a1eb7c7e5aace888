import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { resourceExhausted, statusError } from '../../../test/simulators/google/gmb-answers.ts';
import {
  businessPhoto, connectedLocation, gmbContext, startGmbWithOwners,
} from '../../../test/simulators/google/gmb-test-accounts.ts';
import type { GmbSimulator } from '../../../test/simulators/google/gmb-simulator.ts';
import { startPublicMediaHost, type PublicMediaHost } from '../../../test/simulators/instagram/public-media-host.ts';
import { platformFailure } from '../../../test/simulators/kit/connect-context.ts';
import { authorizeAndConnect } from '../../../test/simulators/kit/oauth-dance.ts';
import { memoryCheckpoint } from '../../../test/support/part-checkpoint.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import type { ChannelCredentials, PlatformAdapter, PublishMedia } from '../kit/platform-adapter.ts';
import type { OAuthConnect } from '../kit/platform-connect.ts';
import { googleOAuthProvider } from '../google/google-oauth.ts';
import { createGmbAdapter } from './adapter.ts';
import { gmbConnect } from './connect.ts';
import { encodeGmbCredential } from './credential.ts';
import { classifyGmbRefusal, gmbErrorMessage, gmbRetryAfterMs } from './gmb-errors.ts';

let sim: GmbSimulator;
let files: PublicMediaHost;
let adapter: PlatformAdapter;
let bakery: ChannelCredentials;

const brand = 'Google Business Profile';

const publish = (channel: ChannelCredentials, content: string, media: PublishMedia[] = []) => platformFailure(
  adapter.publish({
    channel, content, media, settings: { topicType: 'STANDARD' }, idempotencyKey: 'k', checkpoint: memoryCheckpoint(),
  }),
);

beforeAll(async () => {
  [sim, files] = await Promise.all([startGmbWithOwners(), startPublicMediaHost()]);
  adapter = createGmbAdapter({ timeoutMs: 2_000, userHosts: connectionPolicyFor(false) }, { apiUrl: sim.url });
});
afterAll(async () => { await Promise.all([sim.close(), files.close()]); });
beforeEach(async () => {
  sim.authority.now = Date.now;
  bakery = await connectedLocation(sim, 'locations/a1');
});

describe('Google Business Profile refusals, read on Google\'s own codes', () => {
  it('names the field Google refused (INVALID_ARGUMENT): a photo too small, a photo it could not fetch', async () => {
    const small = files.add('small.png', businessPhoto(200), { kind: 'image', mimeType: 'image/png' });
    const missing = { ...small, url: `${files.url}/uploads/gone.png` };
    const tooSmall = await publish(bakery, 'Small', [small]);
    const notThere = await publish(bakery, 'Gone', [missing]);

    expect(tooSmall.kind).toBe('permanent');
    expect(tooSmall.message).toBe(`${brand}: Request contains an invalid argument. (INVALID_ARGUMENT): `
      + 'media[0].source_url: The photo must be at least 250 x 250 pixels.');
    expect(notThere.message).toBe(`${brand}: Request contains an invalid argument. (INVALID_ARGUMENT): `
      + `media[0].source_url: The media could not be fetched from ${missing.url}.`);
    expect(sim.store.posts).toHaveLength(0);
  });

  it('asks for a refresh when the hour-long access token has expired (UNAUTHENTICATED)', async () => {
    sim.authority.now = () => Date.now() + 3_600_000;
    const error = await publish(bakery, 'Expired');

    expect(error.kind).toBe('refresh_token');
    expect(error.message).toMatch(/^Google Business Profile: Request had invalid .*\(UNAUTHENTICATED\)$/);
  });

  it('calls the channel disconnected once the Google account no longer manages the location', async () => {
    const ada = sim.users.get('owner')?.businessAccounts[0];
    const locations = ada?.locations.splice(0) ?? [];
    try {
      const error = await publish(bakery, 'No longer mine');
      expect(error.kind).toBe('disconnected');
      expect(error.message).toBe(`${brand}: the connected Google account no longer manages this Business Profile `
        + 'location: connect it again (The caller does not have permission (PERMISSION_DENIED))');
    } finally {
      ada?.locations.push(...locations);
    }
  });

  it('calls a token without business.manage disconnected, a removed location too', async () => {
    const narrow: OAuthConnect = {
      ...gmbConnect,
      provider: (app) => googleOAuthProvider('gmb', app, ['https://www.googleapis.com/auth/youtube.readonly']),
      accounts: () => Promise.resolve({ pick: false, accounts: [] }),
    };
    const { tokens } = await authorizeAndConnect(narrow, gmbContext(sim));
    const credential = { accessToken: tokens.accessToken, account: 'accounts/100', location: 'locations/a1' };
    const scoped = await publish({ ...bakery, accessToken: encodeGmbCredential(credential) }, 'Narrow');
    expect([scoped.kind, scoped.message]).toEqual(['disconnected', `${brand}: the location was connected without `
      + 'the business.manage permission: connect it again (Request had insufficient authentication scopes. '
      + '(PERMISSION_DENIED))']);

    sim.store.removedLocations.add('locations/a1');
    try {
      const removed = await publish(bakery, 'Removed');
      expect(removed.kind).toBe('disconnected');
      expect(removed.message).toMatch(/the Business Profile location was not found .*\(NOT_FOUND\)\)$/);
    } finally {
      sim.store.removedLocations.clear();
    }
  });

  it('is permanent when the project may not use the API: disabled, or a quota of 0', async () => {
    sim.store.serviceDisabled = true;
    const disabled = await publish(bakery, 'Disabled').finally(() => { sim.store.serviceDisabled = false; });
    sim.store.quotaZero = true;
    const unapproved = await publish(bakery, 'Unapproved').finally(() => { sim.store.quotaZero = false; });

    expect([disabled.kind, unapproved.kind]).toEqual(['permanent', 'permanent']);
    expect(disabled.message).toMatch(new RegExp('^Google Business Profile: the Google Cloud project of this SPS '
      + 'installation may not call the Business Profile API \\(Google My Business API has not been used'));
    expect(unapproved.message).toMatch(new RegExp('has no Business Profile API quota yet; Google grants it once the '
      + 'project\'s access request is approved \\(Quota exceeded'));
    expect(unapproved.retryAfterMs).toBeNull();
  });

  it('waits a minute when the quota is spent (RESOURCE_EXHAUSTED), as long as Google says when it does', async () => {
    const withReset = { ...resourceExhausted(), headers: { 'retry-after': '7' } };
    sim.store.failNext('localPosts.create', resourceExhausted(), withReset);
    const spent = await publish(bakery, 'Throttled');
    const told = await publish(bakery, 'Throttled with a reset');

    expect([spent.kind, spent.httpStatus, spent.retryAfterMs]).toEqual(['retryable', 429, 60_000]);
    expect(spent.message).toMatch(/^Google Business Profile: Quota exceeded for .*\(RESOURCE_EXHAUSTED\)$/);
    expect(told.retryAfterMs).toBe(7_000);
  });

  it('tries again when Google is unavailable', async () => {
    const unavailable = statusError(503, 'UNAVAILABLE', 'The service is currently unavailable.');
    sim.store.failNext('localPosts.create', unavailable);
    const error = await publish(bakery, 'Unavailable');

    expect([error.kind, error.message]).toEqual([
      'retryable', `${brand}: The service is currently unavailable. (UNAVAILABLE)`,
    ]);
  });
});

describe('Google refusal bodies the simulator does not send', () => {
  const refusal = (status: string, details: unknown[]) => ({
    error: { code: 400, message: 'Refused.', status, details },
  });
  const noHeader = () => null;

  it('reads the generic BadRequest field violations', () => {
    const body = refusal('INVALID_ARGUMENT', [{
      '@type': 'type.googleapis.com/google.rpc.BadRequest',
      fieldViolations: [{ field: 'summary', description: 'Too long' }, { description: 'Something else' }],
    }]);
    expect(gmbErrorMessage(body)).toBe(`${brand}: Refused. (INVALID_ARGUMENT): summary: Too long; Something else`);
    expect(classifyGmbRefusal(400, body)).toBeUndefined();
  });

  it('waits for the delay of RetryInfo, and reads an unknown detail type without failing', () => {
    const body = refusal('RESOURCE_EXHAUSTED', [
      { '@type': 'type.googleapis.com/google.rpc.Help', links: [] },
      { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '12.5s' },
    ]);
    expect(classifyGmbRefusal(429, body)).toBe('retryable');
    expect(gmbRetryAfterMs(429, noHeader, 0, body)).toBe(12_500);
  });

  it('asks for a refresh on a bare 401 and leaves other statuses to the HTTP status', () => {
    expect(classifyGmbRefusal(401, '<html>Unauthorized</html>')).toBe('refresh_token');
    expect(classifyGmbRefusal(500, refusal('INTERNAL', []))).toBeUndefined();
    expect(gmbErrorMessage('<html>')).toBeUndefined();
    expect(gmbRetryAfterMs(400, noHeader, 0, refusal('INVALID_ARGUMENT', []))).toBeNull();
  });
});
