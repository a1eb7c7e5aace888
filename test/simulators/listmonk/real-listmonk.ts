import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
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
  await writeFile(config, [
    '[app]', `address = "127.0.0.1:${String(port)}"`, `admin_username = "${user}"`, `admin_password = "${password}"`,
    '[db]', `host = "${db.hostname}"`, `port = ${db.port === '' ? '5432' : db.port}`,
    `user = "${decodeURIComponent(db.username)}"`, 'password = "unused-with-trust-auth"',
    `database = "${db.pathname.slice(1)}"`, 'ssl_mode = "disable"', 'max_open = 5', 'max_idle = 2',
    'max_lifetime = "300s"', '',
  ].join('\n'));
  const client = new pg.Client({ connectionString: database.url });
  let child: ReturnType<typeof spawn> | null = null;
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
    const output: string[] = [];
    const started = spawn(path.join(dir, 'listmonk'), ['--config', config], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    child = started;
    const keep = (chunk: Buffer) => { output.push(chunk.toString('utf8')); if (output.length > 50) output.shift(); };
    started.stdout.on('data', keep);
    started.stderr.on('data', keep);
    await waitForPort('127.0.0.1', port, {
      timeoutMs: 15_000, what: 'listmonk', isAlive: () => started.exitCode === null,
    }).catch((error: unknown) => {
      throw new Error(`${String(error)}\n${output.join('')}`);
    });
  } catch (error) {
    child?.kill('SIGKILL');
    await cleanup();
    throw error;
  }
  const running = child;
  const exited = new Promise<void>((resolve) => {
    if (running.exitCode !== null) resolve();
    else running.once('exit', () => { resolve(); });
  });
  return {
    url,
    user,
    password,
    smtp,
    sql: (text, values) => client.query(text, values),
    close: async () => {
      running.kill('SIGTERM');
      await exited;
      await cleanup();
    },
  };
}
