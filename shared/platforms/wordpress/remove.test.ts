import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryCheckpoint } from '../../../test/support/part-checkpoint.ts';
import {
  sitePost, startTestWordpress, type TestWordpress, type WordpressUser,
} from '../../../test/support/test-wordpress.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import type { ChannelCredentials } from '../kit/platform-adapter.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { createWordpressAdapter } from './adapter.ts';
import { encodeWordpressCredential } from './credential.ts';

/** Removal against a real WordPress (test/support/wordpress-server.ts): entries go to the trash. */
let wp: TestWordpress;
let editor: WordpressUser;
let author: WordpressUser;
const adapter = createWordpressAdapter({ timeoutMs: 5_000, userHosts: connectionPolicyFor(true) });

beforeAll(async () => {
  wp = await startTestWordpress();
  [editor, author] = [await wp.createUser('editor', 'erin'), await wp.createUser('author', 'arthur')];
}, 240_000);

afterAll(async () => {
  await wp.close();
});

function channelOf(user: WordpressUser): ChannelCredentials {
  const { login: username, applicationPassword } = user;
  const accessToken = encodeWordpressCredential({ username, applicationPassword });
  return { channelId: `channel-${user.login}`, accessToken, instanceUrl: wp.url };
}

async function publish(user: WordpressUser, settings: Record<string, unknown>): Promise<string> {
  const result = await adapter.publish({
    channel: channelOf(user), content: 'An entry to remove', media: [], settings,
    idempotencyKey: `sps-post-${String(Math.random())}`, dueAt: new Date(), checkpoint: memoryCheckpoint(),
  });
  return result.releaseId;
}

/** The entry's status as the administrator reads it, the trash included. */
const statusOf = async (restBase: string, id: string) =>
  sitePost.parse(await wp.get(`/wp/v2/${restBase}/${id}`, { context: 'edit' })).status;

describe('removing WordPress entries', () => {
  it('moves a published post to the trash, and a second removal counts it as gone', async () => {
    const settings = { title: 'Trash me', post_type: 'posts' };
    const id = await publish(editor, settings);
    expect(await statusOf('posts', id)).toBe('publish');
    await adapter.remove?.(channelOf(editor), { releaseId: id, settings });
    expect(await statusOf('posts', id)).toBe('trash');
    await expect(adapter.remove?.(channelOf(editor), { releaseId: id, settings })).resolves.toBeUndefined();
  });

  it('removes an entry of the post type the post was published as (a page)', async () => {
    const settings = { title: 'A page to trash', post_type: 'pages' };
    const id = await publish(editor, settings);
    await adapter.remove?.(channelOf(editor), { releaseId: id, settings });
    expect(await statusOf('pages', id)).toBe('trash');
  });

  it('fails, without removing, where the user may not delete the entry (an author and an editor\'s post)', async () => {
    const settings = { title: 'Not yours', post_type: 'posts' };
    const id = await publish(editor, settings);
    const refusal = await adapter.remove?.(channelOf(author), { releaseId: id, settings })
      .catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(PlatformError);
    expect(await statusOf('posts', id)).toBe('publish');
  });
});
