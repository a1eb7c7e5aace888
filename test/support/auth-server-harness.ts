import type { TestContext } from './test-context.ts';
import { freePort } from './free-port.ts';
import { startService, type ServiceProcess } from './processes.ts';
import { createOrganization } from '../../shared/domain/organizations/organizations.ts';
import { registerApp, type StoredApp } from '../../shared/domain/oauth/oauth-apps.ts';

export interface RunningAuthServer {
  url: string;
  process: ServiceProcess;
}

/** Registers the auth server's OAuth app with the service, its callback at `${authUrl}/device/callback`. */
export async function registerAuthServerApp(ctx: TestContext, authUrl: string): Promise<{ app: StoredApp; clientSecret: string }> {
  const { organizationId } = await createOrganization(ctx.db, ctx.secrets, { name: 'SPS command-line' });
  return registerApp(ctx.db, ctx.secrets, organizationId, { name: 'SPS command-line client', description: 'Logs the sps command into your organization.', redirectUrl: `${authUrl}/device/callback` });
}

export async function startAuthServer(env: NodeJS.ProcessEnv, port: number): Promise<RunningAuthServer> {
  const service = startService('auth-server/main.ts', { ...env, PORT: String(port), SERVER_URL: `http://127.0.0.1:${port}` });
  await service.waitForOutput(/auth server listening/);
  return { url: `http://127.0.0.1:${port}`, process: service };
}

export { freePort };
