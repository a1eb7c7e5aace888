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
  if (await createDatabaseIfMissing(url)) log(`created database ${databaseName(url)}`);
}

/** The database named in a PostgreSQL URL; only plain lower-case names, as it goes into SQL as an identifier. */
export function databaseName(url: string): string {
  const name = new URL(url).pathname.replace(/^\//, '');
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) {
    throw new Error(`unexpected database name in ${url}: use lower-case letters, digits and _`);
  }
  return name;
}

/** Runs `work` on a connection to the cluster's `postgres` database, for CREATE and DROP DATABASE. */
export async function withAdminClient<T>(url: string, work: (admin: pg.Client) => Promise<T>): Promise<T> {
  const adminUrl = new URL(url);
  adminUrl.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: adminUrl.toString() });
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.end();
  }
}

/** Creates the database in `url` unless it exists; answers whether it was created. */
export async function createDatabaseIfMissing(url: string): Promise<boolean> {
  const database = databaseName(url);
  return withAdminClient(url, async (admin) => {
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (exists.rowCount !== 0) return false;
    await admin.query(`CREATE DATABASE ${database}`);
    return true;
  });
}
