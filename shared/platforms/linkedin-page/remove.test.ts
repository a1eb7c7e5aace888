import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platformFailure } from '../../../test/simulators/kit/connect-context.ts';
import { connectedChannel } from '../../../test/simulators/linkedin/linkedin-channels.ts';
import {
  startLinkedinPageSimulator, type LinkedinPageSimulator,
} from '../../../test/simulators/linkedin-page/linkedin-page-simulator.ts';
import { memoryCheckpoint } from '../../../test/support/part-checkpoint.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import type { ChannelCredentials, PlatformAdapter, PublishInput } from '../kit/platform-adapter.ts';
import { createLinkedinPageAdapter } from './adapter.ts';
import { linkedinPageConnect } from './connect.ts';

function member(sub: string, name: string) {
  const [given = name, family = name] = name.split(' ');
  return {
    sub, name, given_name: given, family_name: family,
    picture: `https://media.licdn.com/${sub}.jpg`, email: `${sub}@example.org`,
  };
}

const engines = 'urn:li:organization:1001';
const difference = 'urn:li:organization:1002';

let sim: LinkedinPageSimulator;
let adapter: PlatformAdapter;
let enginesPage: ChannelCredentials;
let differencePage: ChannelCredentials;

function part(channel: ChannelCredentials, content: string): PublishInput {
  return { channel, content, media: [], settings: {}, idempotencyKey: content, checkpoint: memoryCheckpoint() };
}

function removeItem(channel: ChannelCredentials, releaseId: string): Promise<void> {
  if (adapter.remove === undefined) throw new Error('the LinkedIn Page adapter has no remove');
  return adapter.remove(channel, { releaseId, settings: {} });
}

const deletes = () => sim.received.filter((request) => request.method === 'DELETE');
const isLive = (urn: string) => sim.publishing.posts.some((post) => post.id === urn);

beforeAll(async () => {
  sim = await startLinkedinPageSimulator();
  sim.addMember(member('ada', 'Ada Lovelace'));
  sim.addMember(member('grace', 'Grace Hopper'));
  const role = (sub: string) => [{ sub, role: 'ADMINISTRATOR' as const, state: 'APPROVED' as const }];
  sim.addOrganization({ id: 1001, localizedName: 'Analytical Engines', vanityName: 'engines', roles: role('ada') });
  sim.addOrganization({ id: 1002, localizedName: 'Difference Ltd', vanityName: 'difference', roles: role('grace') });
  sim.authority.consentingUser = 'ada';
  enginesPage = await connectedChannel(linkedinPageConnect, sim, engines);
  sim.authority.consentingUser = 'grace';
  differencePage = await connectedChannel(linkedinPageConnect, sim, difference);
  const app = {
    clientId: sim.clientId, clientSecret: sim.clientSecret, botToken: null,
    apiUrl: sim.url, authUrl: sim.url, tokenUrl: sim.url,
  };
  adapter = createLinkedinPageAdapter({ timeoutMs: 2_000, userHosts: connectionPolicyFor(false) }, app);
});

afterAll(async () => {
  await sim.close();
});

describe('linkedin-page adapter: removing published posts', () => {
  it('deletes the Page\'s post and, with it, its comment part; the post leaves the Page\'s feed', async () => {
    const post = await adapter.publish(part(enginesPage, 'Page news, gone by noon'));
    const comment = await adapter.comment({ ...part(enginesPage, 'More below'), parentReleaseId: post.releaseId });
    await removeItem(enginesPage, post.releaseId);

    expect(isLive(post.releaseId)).toBe(false);
    expect(sim.publishing.comments.some((item) => item.urn === comment.releaseId)).toBe(false);
    expect(deletes().map((request) => request.path)).toEqual([`/rest/posts/${encodeURIComponent(post.releaseId)}`]);
    expect(deletes()[0]?.headers['x-restli-method']).toBe('DELETE');
    expect((await adapter.recentContent(enginesPage)).map((item) => item.id)).not.toContain(post.releaseId);
    await expect(removeItem(enginesPage, post.releaseId)).resolves.toBeUndefined();
  });

  it('classifies a refusal as publishing does: another organization\'s post is ACCESS_DENIED', async () => {
    const post = await adapter.publish(part(differencePage, 'Only Difference Ltd may delete this'));
    const refused = await platformFailure(removeItem(enginesPage, post.releaseId));
    expect(refused).toMatchObject({ kind: 'disconnected', httpStatus: 403 });
    expect(isLive(post.releaseId)).toBe(true);
  });
});
