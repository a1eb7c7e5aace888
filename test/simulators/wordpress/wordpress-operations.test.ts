import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimulatedRequest } from '../kit/simulator-server.ts';
import {
  startWordpressSimulator, type RunningWordpressSimulator, type SimulatedWordpressUser,
} from './wordpress-simulator.ts';
import { refuseAsWordpress, wordpressOperations } from './wordpress-operations.ts';

const author: SimulatedWordpressUser = {
  id: 3, login: 'ada', email: 'ada@example.org', name: 'Ada', slug: 'ada', roles: ['author'],
  applicationPasswords: ['abcd EFGH ijkl MNOP qrst UVWX'],
};
const basic = `Basic ${Buffer.from('ada:abcdEFGHijklMNOPqrstUVWX').toString('base64')}`;

let pretty: RunningWordpressSimulator;
let plain: RunningWordpressSimulator;

beforeAll(async () => {
  pretty = await startWordpressSimulator({ users: [author] });
  plain = await startWordpressSimulator({ users: [author], folder: '/blog', prettyPermalinks: false });
});

afterAll(async () => {
  await Promise.all([pretty.close(), plain.close()]);
});

async function get(url: string): Promise<{ status: number; body: unknown }> {
  const answer = await fetch(url, { headers: { authorization: basic } });
  const text = await answer.text();
  return { status: answer.status, body: text.startsWith('{') ? JSON.parse(text) as unknown : text };
}

describe('the WordPress simulator held to WordPress 6.1.9\'s routes', () => {
  it('refuses a context the route does not register, in WordPress\'s rest_invalid_param shape', async () => {
    const answer = await get(`${pretty.siteUrl}/wp-json/wp/v2/users/me?context=full`);

    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({
      code: 'rest_invalid_param',
      message: 'Invalid parameter(s): context',
      data: {
        status: 400, params: { context: expect.stringMatching(/^query\.context must be equal to one of/) as string },
      },
    });
  });

  it('reads ?rest_route= under a folder as the same operation, and refuses the same way', async () => {
    const answer = await get(`${plain.siteUrl}/?rest_route=/wp/v2/users/me&context=full`);

    expect(answer).toMatchObject({ status: 400, body: { code: 'rest_invalid_param', data: { status: 400 } } });
  });

  it('ignores a parameter the route does not register, as WordPress 6.1.9 does', async () => {
    const viaIndex = await get(`${plain.siteUrl}/index.php?rest_route=/wp/v2/users/me&context=edit&bogus=1`);
    const viaPermalink = await get(`${pretty.siteUrl}/wp-json/wp/v2/users/me?bogus=1`);

    expect(viaIndex).toMatchObject({
      status: 200, body: { id: 3, username: 'ada', meta: { persisted_preferences: [] } },
    });
    expect(viaPermalink).toMatchObject({ status: 200, body: { id: 3, meta: [] } });
    expect(viaPermalink.body).not.toHaveProperty('username');
  });

  it('answers its 404 page, not a REST refusal, where the site does not route /wp-json/', async () => {
    const answer = await get(`${plain.siteUrl}/wp-json/wp/v2/users/me?context=full`);

    expect(answer.status).toBe(404);
    expect(answer.body).toContain('Page not found');
  });

  it('holds answers to the user schema: one without `meta` and `_links` is off the description', () => {
    const { check } = wordpressOperations(refuseAsWordpress);
    const request: SimulatedRequest = {
      method: 'GET', path: '/wp-json/wp/v2/users/me', query: new URLSearchParams(), headers: {}, text: '',
      raw: Buffer.alloc(0), receivedAt: 0,
    };
    const { operation } = check.checkRequest(request);
    if (operation === null) throw new Error('GET /wp/v2/users/me is not described');
    const body = { id: 3, name: 'Ada', url: '', description: '', link: 'http://127.0.0.1/author/ada/', slug: 'ada' };

    expect(check.checkAnswer(operation, { status: 200, body })).toEqual([
      'answer 200 must have required property \'meta\'',
      'answer 200 must have required property \'_links\'',
    ]);
  });
});
