import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startListmonkSimulator, type RunningListmonkSimulator, type SimulatedListmonkApiUser,
} from './listmonk-simulator.ts';

const admin: SimulatedListmonkApiUser = {
  id: 1, username: 'sps', name: 'SPS', token: 'listmonk-token', role: { id: 1, name: 'Super Admin', permissions: [] },
};

let listmonk: RunningListmonkSimulator;

beforeAll(async () => {
  listmonk = await startListmonkSimulator({ users: [admin], siteName: 'Acme' });
});

afterAll(async () => {
  await listmonk.close();
});

async function createCampaign(fields: Record<string, unknown>): Promise<{ status: number; body: unknown }> {
  const answer = await fetch(`${listmonk.rootUrl}/api/campaigns`, {
    method: 'POST',
    headers: { authorization: `token ${admin.username}:${admin.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'News', subject: 'News', lists: [1], ...fields }),
  });
  return { status: answer.status, body: await answer.json() };
}

describe('the listmonk simulator held to listmonk\'s description', () => {
  it('takes the body, altbody and template_id the description lacks, as listmonk binds them', async () => {
    const answer = await createCampaign({ body: '<p>Hi</p>', altbody: 'Hi', template_id: 2, content_type: 'html' });

    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ data: { status: 'draft', template_id: 2, altbody: 'Hi' } });
  });

  it('refuses a field listmonk does not bind, in its own {message}', async () => {
    const before = listmonk.state.campaigns.length;
    const answer = await createCampaign({ body: '<p>Hi</p>', templat_id: 2 });

    expect(answer).toEqual({ status: 400, body: { message: 'body.templat_id is not a field of the operation' } });
    expect(listmonk.state.campaigns).toHaveLength(before);
  });
});
