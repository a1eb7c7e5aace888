import type { TestContext } from './test-context.ts';
import { startService, type ServiceProcess } from './processes.ts';
import { createOrganization } from '../../shared/domain/organizations/organizations.ts';
import { editApp, registerApp, type StoredApp } from '../../shared/domain/oauth/oauth-apps.ts';

export interface RunningAuthServer {
  /** Where this instance answers: http://127.0.0.1:{the port it reported}. */
  url: string;
  /** Its public URL (SERVER_URL, or http://localhost:{port} by default): the verification_uri's origin. */
  publicUrl: string;
  port: number;
  process: ServiceProcess;
}

/**
 * Registers the auth server's OAuth app with the service. Its callback is a placeholder until
 * `useAuthServerCallback` points it at a started server, whose port is only known then.
 */
export async function registerAuthServerApp(ctx: TestContext): Promise<{ app: StoredApp; clientSecret: string }> {
  const { organizationId } = await createOrganization(ctx.db, ctx.secrets, { name: 'SPS command-line' });
  return registerApp(ctx.db, ctx.secrets, organizationId, {
    name: 'SPS command-line client',
    description: 'Logs the sps command into your organization.',
    redirectUrl: 'http://127.0.0.1/device/callback',
  });
}

/**
 * What an auth server needs to run against a test's service (its api at `serviceUrl`) with its
 * own database: the app's credentials and the service's addresses. `more` adds or overrides.
 */
export function authServerEnvironment(
  registered: { app: StoredApp; clientSecret: string },
  serviceUrl: string,
  databaseUrl: string,
  more: NodeJS.ProcessEnv = {},
): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH, DATABASE_URL: databaseUrl, LOG_LEVEL: 'info',
    SERVICE_OAUTH_CLIENT_ID: registered.app.clientId, SERVICE_OAUTH_CLIENT_SECRET: registered.clientSecret,
    SERVICE_FRONTEND_URL: serviceUrl, SERVICE_API_URL: `${serviceUrl}/api`,
    ...more,
  };
}

/** Makes the service send approvals to `${publicUrl}/device/callback`, as the auth server's operator would. */
export async function useAuthServerCallback(ctx: TestContext, app: StoredApp, publicUrl: string): Promise<void> {
  // Registered in the dashboard above, so an organization owns it (only dynamic clients have none).
  if (app.organizationId === null || app.organizationId === undefined) throw new Error('the app has no organization');
  await editApp(ctx.db, app.organizationId.toString(), app._id.toString(), {
    name: app.name, description: app.description ?? undefined, redirectUrl: `${publicUrl}/device/callback`,
  });
}

/**
 * Starts auth-server/main.ts on the port it picks itself (PORT=0 unless `env` says otherwise) and
 * reads that port from its "listening" line: no port is chosen here and bound later by someone else.
 */
export async function startAuthServer(env: NodeJS.ProcessEnv): Promise<RunningAuthServer> {
  const service = startService('auth-server/main.ts', { PORT: '0', LOG_LEVEL: 'info', ...env });
  const [, publicUrl = '', port = ''] = await service.waitForOutput(/auth server listening on (\S+) \(port (\d+)\)/);
  return { url: `http://127.0.0.1:${port}`, publicUrl, port: Number(port), process: service };
}
