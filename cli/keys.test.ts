import { describe, expect, it } from 'vitest';
import { useCliAgainstApi } from '../test/support/cli-against-api.ts';
import { stdoutJson } from './test/run-cli.ts';

interface ListedKey {
  id: string;
  name: string;
  scopes: string[];
  expiresAt: string | null;
  lastUsedAt: string | null;
}

describe('sps keys:* against the api', () => {
  const { sps } = useCliAgainstApi('Keys from the shell');

  it('creates a key with scopes and an expiry, lists it, and revokes it', async () => {
    const created = stdoutJson(await sps([
      'keys:create', '--name', 'shell', '--scope', 'posts', '--scope', 'uploads,read', '--expires', '2099-01-31',
    ])) as ListedKey & { key: string };
    expect(created).toMatchObject({
      name: 'shell', scopes: ['posts', 'uploads', 'read'], expiresAt: '2099-01-31T00:00:00.000Z',
    });
    expect(created.key).toMatch(/^spk_/);

    // The new key works, within its scopes.
    expect((await sps(['integrations:list'], created.key)).code).toBe(0);
    const refused = await sps(['keys:list'], created.key);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^Error: .*\(insufficient_scope, HTTP 403\)$/m);

    const listed = stdoutJson(await sps(['keys:list'])) as { keys: ListedKey[] };
    expect(listed.keys).toEqual([expect.objectContaining({ id: created.id, name: 'shell' })]);
    expect(listed.keys[0]?.lastUsedAt).not.toBeNull();

    expect(stdoutJson(await sps(['keys:revoke', created.id]))).toEqual({ id: created.id, revoked: true });
    expect((stdoutJson(await sps(['keys:list'])) as { keys: ListedKey[] }).keys).toEqual([]);
    const gone = await sps(['integrations:list'], created.key);
    expect(gone.stderr).toMatch(/\(invalid_credentials, HTTP 401\)$/m);
  });

  it('refuses a bad expiry before calling, and shows the server\'s refusal of an unknown scope', async () => {
    const badDate = await sps(['keys:create', '--name', 'x', '--scope', 'read', '--expires', 'tomorrow']);
    expect(badDate.code).toBe(1);
    expect(badDate.stderr).toContain('expected a date like 2030-01-31');
    const badScope = await sps(['keys:create', '--name', 'x', '--scope', 'everything']);
    expect(badScope.code).toBe(1);
    expect(badScope.stderr).toMatch(/\(validation_failed, HTTP 400\)$/m);
    const noScope = await sps(['keys:create', '--name', 'x']);
    expect(noScope.code).toBe(1);
    expect(noScope.stderr).toContain('--scope');
  });
});
