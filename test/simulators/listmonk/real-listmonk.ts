import { execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { waitForPort } from '../../../scripts/local/wait-for-port.ts';
import { freePort } from '../../support/free-port.ts';
import { createTestDatabase } from '../../support/postgres.ts';
import { buildListmonk } from './listmonk-build.ts';
import { startSmtpSink, type SmtpSink } from './smtp-sink.ts';

const run = promisify(execFile);

export interface RealListmonk {
  /** http://127.0.0.1:<port>, the instance's root as a user types it. */
  url: string;
  /** The admin's Basic auth pair, which listmonk before v4 takes for every API call. */
  user: string;
  password: string;
  /** Every email the instance sent: its SMTP server is this sink. */
  smtp: SmtpSink;
  /** Runs SQL on the instance's own database, for a test to set up what the API cannot. */
  sql(text: string, values?: unknown[]): Promise<pg.QueryResult>;
  /** The admin's password changed in the config and the instance restarted: the old login stops working. */
  changePassword(password: string): Promise<void>;
  close(): Promise<void>;
}

/** Settings listmonk keeps in its database; they are read at start. */
function settings(url: string, uploads: string, smtpPort: number): Record<string, unknown> {
  return {
    'app.root_url': url,
    // No network here: an update check would only log failures.
    'app.check_updates': false,
    'upload.filesystem.upload_path': uploads,
    smtp: [{
      enabled: true, host: '127.0.0.1', port: smtpPort, auth_protocol: 'none', username: '', password: '',
      hello_hostname: '', max_conns: 1, idle_timeout: '15s', wait_timeout: '5s', max_msg_retries: 0,
      tls_enabled: false, tls_skip_verify: false, email_headers: [],
    }],
  };
}

interface Instance {
  stop(): Promise<void>;
}

/** Starts the binary from its folder (it reads its SQL and i18n files there) and waits for its port. */
async function launch(binary: string, config: string, port: number): Promise<Instance> {
  const output: string[] = [];
  const child = spawn(binary, ['--config', config], { cwd: path.dirname(binary), stdio: ['ignore', 'pipe', 'pipe'] });
  const keep = (chunk: Buffer) => {
    output.push(chunk.toString('utf8'));
    if (output.length > 50) output.shift();
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise<void>((resolve) => { child.once('exit', () => { resolve(); }); });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  try {
    const isAlive = () => child.exitCode === null;
    await waitForPort('127.0.0.1', port, { timeoutMs: 15_000, what: 'listmonk', isAlive });
  } catch (error) {
    await stop();
    throw new Error(`${String(error)}\n${output.join('')}`, { cause: error });
  }
  return { stop };
}

/**
 * A real listmonk (listmonk-build.ts) on a free loopback port, over a PostgreSQL database of its
 * own on the machine's server, installed with `--install --yes` (two lists, two subscribers, a
 * default template and a draft "Test campaign"), sending through an SMTP sink. About a second to
 * start; `close` stops it and drops the database.
 */
export async function startRealListmonk(log: (line: string) => void = () => undefined): Promise<RealListmonk> {
  const dir = buildListmonk(log);
  const [database, port, smtp, work] = await Promise.all([
    createTestDatabase('sps_listmonk_test'),
    freePort(),
    startSmtpSink(),
    mkdtemp(path.join(tmpdir(), 'sps-listmonk-')),
  ]);
  const url = `http://127.0.0.1:${String(port)}`;
  const db = new URL(database.url);
  const user = 'sps-admin';
  const password = 'listmonk-test-password';
  const config = path.join(work, 'config.toml');
  // listmonk v1 joins the settings into "key=value" pairs: an empty password would swallow the
  // next pair (dbname) and connect to the default database, so one is given though trust auth ignores it.
  const writeConfig = (adminPassword: string) => writeFile(config, [
    '[app]', `address = "127.0.0.1:${String(port)}"`, `admin_username = "${user}"`,
    `admin_password = "${adminPassword}"`,
    '[db]', `host = "${db.hostname}"`, `port = ${db.port === '' ? '5432' : db.port}`,
    `user = "${decodeURIComponent(db.username)}"`, 'password = "unused-with-trust-auth"',
    `database = "${db.pathname.slice(1)}"`, 'ssl_mode = "disable"', 'max_open = 5', 'max_idle = 2',
    'max_lifetime = "300s"', '',
  ].join('\n'));
  await writeConfig(password);
  // The filesystem store writes into its folder but does not make it.
  await mkdir(path.join(work, 'uploads'));
  const client = new pg.Client({ connectionString: database.url });
  let running: Instance;
  const cleanup = async () => {
    await client.end().catch(() => undefined);
    await database.drop();
    await smtp.close();
    await rm(work, { recursive: true, force: true });
  };
  try {
    await run(path.join(dir, 'listmonk'), ['--config', config, '--install', '--yes'], { cwd: dir });
    await client.connect();
    for (const [key, value] of Object.entries(settings(url, path.join(work, 'uploads'), smtp.port))) {
      await client.query('UPDATE settings SET value = $2 WHERE key = $1', [key, JSON.stringify(value)]);
    }
    running = await launch(path.join(dir, 'listmonk'), config, port);
  } catch (error) {
    await cleanup();
    throw error;
  }
  return {
    url,
    user,
    password,
    smtp,
    sql: (text, values) => client.query(text, values),
    changePassword: async (newPassword) => {
      await running.stop();
      await writeConfig(newPassword);
      running = await launch(path.join(dir, 'listmonk'), config, port);
    },
    close: async () => {
      await running.stop();
      await cleanup();
    },
  };
}
