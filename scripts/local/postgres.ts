import { execFileSync } from 'node:child_process';
import pg from 'pg';
import { hasCommand } from './system-package.ts';
import { portIsOpen, waitForPort } from './wait-for-port.ts';

/** The auth server's database for the local default run. */
export const localAuthDatabaseUrl = 'postgres://postgres@127.0.0.1:5432/sps_auth';

/**
 * Makes sure the local PostgreSQL answers (starting Debian's cluster if it is installed but
 * stopped) and that the database in `url` exists.
 */
export async function ensureLocalPostgres(url: string, log: (line: string) => void): Promise<void> {
  const parsed = new URL(url);
  const port = Number(parsed.port || 5432);
  if (!(await portIsOpen(parsed.hostname, port))) {
    if (!hasCommand('pg_ctlcluster')) throw new Error(`PostgreSQL does not answer on ${parsed.host}; install and start it, or set DATABASE_URL`);
    log('starting the local PostgreSQL cluster...');
    const version = execFileSync('ls', ['/etc/postgresql'], { encoding: 'utf8' }).trim().split('\n')[0] ?? '';
    execFileSync('pg_ctlcluster', ['--skip-systemctl-redirect', version, 'main', 'start'], { stdio: 'inherit' });
    await waitForPort(parsed.hostname, port, { timeoutMs: 20_000, what: 'PostgreSQL' });
  }
  const database = parsed.pathname.replace(/^\//, '');
  if (!/^[a-z_][a-z0-9_]*$/.test(database)) throw new Error(`unexpected database name in ${url}`);
  const adminUrl = new URL(url);
  adminUrl.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: adminUrl.toString() });
  await admin.connect();
  try {
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (exists.rowCount === 0) {
      log(`creating database ${database}...`);
      await admin.query(`CREATE DATABASE ${database}`);
    }
  } finally {
    await admin.end();
  }
}
