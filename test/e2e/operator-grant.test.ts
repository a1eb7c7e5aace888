import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../shared/config/config.ts';
import { DashboardClient, newAccount } from '../browser/dashboard-client.ts';
import { runScript } from '../support/processes.ts';
import { useSimulatedStack } from '../support/simulated-stack.ts';

/**
 * Operators see every organization's jobs on Bull Board. Sign-up proves nothing about an email,
 * so no email makes an operator: only the stored flag does, set by `npm run operator:grant`.
 */
describe('who is an operator', () => {
  it('refuses OPERATOR_EMAILS at boot, saying how the role is granted instead; empty is accepted', () => {
    const env = { SECRETS_KEY: 'a'.repeat(64) };
    expect(() => loadConfig({ ...env, OPERATOR_EMAILS: 'ops@example.com' }))
      .toThrow(/^ {2}- OPERATOR_EMAILS: no longer read.*npm run operator:grant -- --email/m);
    expect(loadConfig({ ...env, OPERATOR_EMAILS: ' ' }).OPERATOR_EMAILS).toBeUndefined();
  });

  describe('on a running api', () => {
    const world = useSimulatedStack({ workers: false });

    it('a new sign-up is no operator until operator:grant sets the flag, and none once it is revoked', async () => {
      const account = newAccount('first-ops');
      const client = new DashboardClient(world.stack.baseUrl);
      expect((await client.signUp(account)).status).toBe(302);
      expect((await client.get('/admin/queues')).status).toBe(403);

      const grant = async (...extra: string[]) => {
        const args = ['--email', account.email.toUpperCase(), ...extra];
        const result = await runScript('scripts/operator-grant.ts', args, world.ctx.env);
        expect(result.code, result.stderr).toBe(0);
        return JSON.parse(result.stdout) as unknown;
      };
      expect(await grant()).toEqual({ email: account.email, operator: true });
      expect((await client.get('/admin/queues')).status).toBe(200);
      expect(await grant('--revoke')).toEqual({ email: account.email, operator: false });
      expect((await client.get('/admin/queues')).status).toBe(403);
    });
  });
});
