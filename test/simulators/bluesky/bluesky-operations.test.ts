import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBlueskySimulator, type BlueskySimulator } from './bluesky-simulator.ts';

const alice = {
  did: 'did:plc:alice123', handle: 'alice.bsky.social', email: 'alice@example.org', appPassword: 'abcd-efgh-ijkl-mnop',
};

let pds: BlueskySimulator;

beforeAll(async () => {
  pds = await startBlueskySimulator();
  pds.addAccount(alice);
});

afterAll(async () => {
  await pds.close();
});

async function createSession(input: unknown): Promise<{ status: number; body: unknown }> {
  const answer = await fetch(`${pds.url}/xrpc/com.atproto.server.createSession`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(input),
  });
  return { status: answer.status, body: await answer.json() };
}

async function signedIn(): Promise<string> {
  const session = await createSession({ identifier: alice.handle, password: alice.appPassword });
  return (session.body as { accessJwt: string }).accessJwt;
}

describe('the Bluesky simulator held to the atproto lexicons', () => {
  it('refuses a createSession input without the lexicon\'s required password, as XRPC InvalidRequest', async () => {
    const answer = await createSession({ identifier: alice.handle });

    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ error: 'InvalidRequest', message: 'body must have required property \'password\'' });
  });

  it('refuses an identifier that is not a string', async () => {
    const answer = await createSession({ identifier: 42, password: alice.appPassword });

    expect(answer).toEqual({
      status: 400, body: { error: 'InvalidRequest', message: 'body.identifier must be string' },
    });
  });

  it('refuses a procedure called without its JSON input', async () => {
    const answer = await fetch(`${pds.url}/xrpc/com.atproto.server.createSession`, { method: 'POST' });

    expect(answer.status).toBe(400);
    expect(await answer.json()).toMatchObject({ error: 'InvalidRequest' });
  });

  it('refuses a getProfile actor that is neither a handle nor a DID (format at-identifier)', async () => {
    const actor = encodeURIComponent('not a handle');
    const answer = await fetch(`${pds.url}/xrpc/app.bsky.actor.getProfile?actor=${actor}`, {
      headers: { authorization: `Bearer ${await signedIn()}` },
    });

    const body = await answer.json() as { error: string; message: string };
    expect(answer.status).toBe(400);
    expect(body.error).toBe('InvalidRequest');
    expect(body.message).toMatch(/^query\.actor must match pattern/);
  });

  it('ignores a field and a parameter the lexicons do not name, as the PDS does (objects are open)', async () => {
    const session = await createSession({ identifier: alice.handle, password: alice.appPassword, rememberMe: true });
    expect(session.status).toBe(200);

    const profile = await fetch(`${pds.url}/xrpc/app.bsky.actor.getProfile?actor=${alice.did}&lang=en`, {
      headers: { authorization: `Bearer ${await signedIn()}` },
    });
    expect(profile.status).toBe(200);
    expect(await profile.json()).toMatchObject({ did: alice.did, handle: alice.handle });
  });
});
