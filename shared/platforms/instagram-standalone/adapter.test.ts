import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startInstagramStandaloneSimulator, type InstagramStandaloneSimulator,
} from '../../../test/simulators/instagram-standalone/instagram-standalone-simulator.ts';
import {
  sampleJpeg, startPublicMediaHost, type PublicMediaHost,
} from '../../../test/simulators/instagram/public-media-host.ts';
import { platformFailure } from '../../../test/simulators/kit/connect-context.ts';
import { authorizeAndConnect } from '../../../test/simulators/kit/oauth-dance.ts';
import { memoryCheckpoint } from '../../../test/support/part-checkpoint.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import { createInstagramStandaloneAdapter } from './adapter.ts';
import { instagramStandaloneConnect } from './connect.ts';

const day = 24 * 3600 * 1000;

/**
 * What only Instagram Login has: the account is the token's own (`/me` `user_id`, no Page), and
 * its token dies 60 days after its last renewal. The publishing paths both variants share are
 * tested in ../instagram/adapter.test.ts.
 */
describe('Instagram Login adapter against the simulated graph.instagram.com', () => {
  let simulator: InstagramStandaloneSimulator;
  let media: PublicMediaHost;
  let clock = Date.now();

  beforeAll(async () => {
    [simulator, media] = await Promise.all([startInstagramStandaloneSimulator(), startPublicMediaHost()]);
    simulator.authority.now = () => clock;
    simulator.addUser('ada', {
      userId: '17841400000000009', appScopedId: '7000000000000009', username: 'ada.solo', name: 'Ada Solo',
      profilePictureUrl: 'https://cdninstagram.example/solo.jpg',
    });
    simulator.authority.consentingUser = 'ada';
  });
  afterAll(async () => {
    await Promise.all([simulator.close(), media.close()]);
  });

  it('publishes as the token’s own account, and calls the token disconnected once its 60 days are over', async () => {
    const context = { app: simulator.app, timeoutMs: 2_000, userHosts: connectionPolicyFor(false) };
    const { authorized } = await authorizeAndConnect(instagramStandaloneConnect, context);
    const channel = { channelId: 'c', accessToken: authorized.accounts[0]?.accessToken ?? '', instanceUrl: null };
    const options = { timeoutMs: 2_000, userHosts: connectionPolicyFor(false) };
    const adapter = createInstagramStandaloneAdapter(options, simulator.app);
    const jpeg = media.add('solo.jpg', sampleJpeg(), { kind: 'image', mimeType: 'image/jpeg' });
    const input = (content: string) => ({
      channel, content, media: [jpeg], settings: {}, idempotencyKey: content, checkpoint: memoryCheckpoint(),
    });

    const published = await adapter.publish(input('Solo post'));
    expect(simulator.content.media.find((item) => item.id === published.releaseId)?.owner).toBe('17841400000000009');
    const me = simulator.received.filter((request) => request.path === '/v26.0/me').at(-1);
    expect(me?.query.get('fields')).toBe('user_id,username');

    clock += 61 * day;
    const error = await platformFailure(adapter.publish(input('Too late')));
    expect(error.kind).toBe('disconnected');
    expect(error.message).toMatch(/^Error validating access token: Session has expired on /);
  });
});
