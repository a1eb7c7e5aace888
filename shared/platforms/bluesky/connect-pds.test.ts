import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import { startTestBlueskyPds, type PdsAccount, type TestBlueskyPds } from '../../../test/support/bluesky-pds.ts';
import { samplePng } from '../../../test/support/sample-media.ts';
import { platformFailure, testConnectContext } from '../../../test/simulators/kit/connect-context.ts';
import { blueskyConnect } from './connect.ts';

/** The credentials form against the reference PDS, which has no AppView behind it (getProfile fails). */
describe('bluesky connect against the reference PDS', () => {
  let pds: TestBlueskyPds;
  let dana: PdsAccount;
  let erin: PdsAccount;
  const context = testConnectContext({
    apiUrl: 'https://bsky.invalid',
    userHosts: connectionPolicyFor(true),
    timeoutMs: 5_000,
  });

  beforeAll(async () => {
    pds = await startTestBlueskyPds();
    [dana, erin] = await Promise.all([pds.createAccount('dana'), pds.createAccount('erin')]);
  }, 60_000);

  afterAll(async () => {
    await pds.close();
  });

  it('signs in with the DID and an app password; with no profile record the handle names it', async () => {
    const account = await blueskyConnect.verify(
      { identifier: dana.did, appPassword: dana.appPassword, pdsUrl: pds.url },
      context,
    );
    expect(account).toMatchObject({
      accountId: dana.did,
      name: 'dana.test',
      username: 'dana.test',
      picture: null,
      instanceUrl: pds.url,
    });
    expect(account.expiresAt?.getTime()).toBeGreaterThan(Date.now() + 7_000_000);
  });

  it('reads the display name and avatar from the profile record when the AppView cannot be reached', async () => {
    const { avatarCid } = await pds.setProfile(erin, 'Erin E.', samplePng());
    const account = await blueskyConnect.verify(
      { identifier: 'erin.test', appPassword: erin.appPassword, pdsUrl: pds.url },
      context,
    );
    expect(account.name).toBe('Erin E.');
    expect(account.picture).toBe(
      `${pds.url}/xrpc/com.atproto.sync.getBlob?did=${encodeURIComponent(erin.did)}&cid=${avatarCid}`,
    );
  });

  it('refuses a wrong app password with the PDS\'s own words', async () => {
    const error = await platformFailure(
      blueskyConnect.verify(
        { identifier: 'dana.test', appPassword: 'aaaa-bbbb-cccc-dddd', pdsUrl: pds.url },
        context,
      ),
    );
    expect(error).toMatchObject({ kind: 'disconnected', message: 'Bluesky: Invalid identifier or password' });
  });

  it('renews the session, and asks for a reconnect once the app password is revoked', async () => {
    const account = await blueskyConnect.verify(
      { identifier: 'dana.test', appPassword: dana.appPassword, pdsUrl: pds.url },
      context,
    );
    const refresh = blueskyConnect.refresh;
    if (refresh === undefined) throw new Error('bluesky must renew sessions');
    const renewed = await refresh(account.refreshToken ?? '', pds.url, context);
    expect(renewed.refreshToken).not.toBe(account.refreshToken);

    await pds.revokeAppPassword(dana);
    const error = await platformFailure(refresh(renewed.refreshToken ?? '', pds.url, context));
    expect(error).toMatchObject({
      kind: 'disconnected',
      httpStatus: 400,
      message: 'Bluesky: Token has been revoked',
    });
  });
});
