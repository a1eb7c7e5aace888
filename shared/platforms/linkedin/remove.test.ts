import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platformFailure } from '../../../test/simulators/kit/connect-context.ts';
import { connectedChannel } from '../../../test/simulators/linkedin/linkedin-channels.ts';
import {
  startLinkedinSimulator, type LinkedinSimulator,
} from '../../../test/simulators/linkedin/linkedin-simulator.ts';
import { memoryCheckpoint } from '../../../test/support/part-checkpoint.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import type { ChannelCredentials, PlatformAdapter, PublishInput } from '../kit/platform-adapter.ts';
import { linkedinRestHeaders } from '../linkedin-family/linkedin-provider.ts';
import { createLinkedinAdapter } from './adapter.ts';
import { linkedinConnect } from './connect.ts';

function member(sub: string, name: string) {
  const [given = name, family = name] = name.split(' ');
  return {
    sub, name, given_name: given, family_name: family,
    picture: `https://media.licdn.com/${sub}.jpg`, email: `${sub}@example.org`,
  };
}

let sim: LinkedinSimulator;
let adapter: PlatformAdapter;
let ada: ChannelCredentials;
let grace: ChannelCredentials;

function part(channel: ChannelCredentials, content: string): PublishInput {
  return { channel, content, media: [], settings: {}, idempotencyKey: content, checkpoint: memoryCheckpoint() };
}

function removeItem(channel: ChannelCredentials, releaseId: string): Promise<void> {
  if (adapter.remove === undefined) throw new Error('the LinkedIn adapter has no remove');
  return adapter.remove(channel, { releaseId, settings: {} });
}

const deletes = () => sim.received.filter((request) => request.method === 'DELETE');
const isLive = (urn: string) => sim.publishing.posts.some((post) => post.id === urn);

beforeAll(async () => {
  sim = await startLinkedinSimulator();
  sim.addMember(member('ada', 'Ada Lovelace'));
  sim.addMember(member('grace', 'Grace Hopper'));
  sim.authority.consentingUser = 'ada';
  ada = await connectedChannel(linkedinConnect, sim);
  sim.authority.consentingUser = 'grace';
  grace = await connectedChannel(linkedinConnect, sim);
  adapter = createLinkedinAdapter({ timeoutMs: 2_000, userHosts: connectionPolicyFor(false) }, { apiUrl: sim.url });
});

afterAll(async () => {
  await sim.close();
});

describe('linkedin adapter: removing published posts', () => {
  it('deletes the post with DELETE /rest/posts/{urn}; its comment goes with it', async () => {
    const post = await adapter.publish(part(ada, 'Gone by noon'));
    const comment = await adapter.comment({ ...part(ada, 'A later part'), parentReleaseId: post.releaseId });
    await removeItem(ada, post.releaseId);

    expect(isLive(post.releaseId)).toBe(false);
    expect(sim.publishing.comments.some((item) => item.urn === comment.releaseId)).toBe(false);
    const [sent, ...others] = deletes();
    expect(others).toEqual([]);
    expect(sent?.path).toBe(`/rest/posts/${encodeURIComponent(post.releaseId)}`);
    expect(sent?.headers).toMatchObject({
      authorization: `Bearer ${ada.accessToken}`, 'x-restli-method': 'DELETE', 'x-restli-protocol-version': '2.0.0',
    });
    expect(sent?.headers['linkedin-version']).toMatch(/^\d{6}$/);

    // A later read of the post finds nothing.
    const read = await fetch(`${sim.url}/rest/socialActions/${encodeURIComponent(post.releaseId)}/comments`, {
      headers: linkedinRestHeaders(ada.accessToken),
    });
    expect(read.status).toBe(404);
  });

  it('resolves when the post is already deleted or never existed', async () => {
    const post = await adapter.publish(part(ada, 'Deleted twice'));
    await removeItem(ada, post.releaseId);
    await expect(removeItem(ada, post.releaseId)).resolves.toBeUndefined();
    const neverWas = 'urn:li:share:7000000000000000001';
    await expect(removeItem(ada, neverWas)).resolves.toBeUndefined();
    expect(deletes().slice(-2).map((request) => request.path))
      .toEqual([post.releaseId, neverWas].map((urn) => `/rest/posts/${encodeURIComponent(urn)}`));
  });

  it('classifies a refusal as publishing does: another member\'s post is ACCESS_DENIED', async () => {
    const post = await adapter.publish(part(grace, 'Only Grace may delete this'));
    const refused = await platformFailure(removeItem(ada, post.releaseId));
    expect(refused).toMatchObject({ kind: 'disconnected', httpStatus: 403 });
    expect(isLive(post.releaseId)).toBe(true);
  });

  it('refuses a release id that names no post, a comment\'s included, without a call', async () => {
    const before = deletes().length;
    const refused = await platformFailure(removeItem(ada, 'urn:li:image:D4E10AQ00'));
    expect(refused.kind).toBe('permanent');
    // A comment part is settled by the removal worker with its post (laterPartsGoWithFirst).
    const comment = await platformFailure(removeItem(ada, 'urn:li:comment:(urn:li:activity:1,2)'));
    expect(comment.kind).toBe('permanent');
    expect(deletes()).toHaveLength(before);
  });
});
