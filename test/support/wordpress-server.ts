import { execFile, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port.ts';
import { hasCommand } from '../../scripts/local/system-package.ts';
import { portIsOpen, waitForPort } from '../../scripts/local/wait-for-port.ts';

/**
 * A real WordPress for tests: Debian's `wordpress` package (6.1) with `php-cli` and `php-mysql`,
 * on the machine's MariaDB (127.0.0.1:3306, root without a password), served by PHP's built-in
 * server on loopback from /usr/share/wordpress. Each site is its own: a database and a MariaDB
 * user, a config file /etc/wordpress/config-<name>.php that Debian's wp-config.php loads when
 * $_SERVER['WORDPRESS_CONFIG'] names it (set per server by an auto_prepend_file, since PHP's
 * built-in server passes no environment there), and a wp-content folder of its own for uploads.
 * So test files running at once never share a database, a config or an upload folder.
 */

const wordpressRoot = '/usr/share/wordpress';
const configDir = '/etc/wordpress';
const sitePrefix = 'sps-test-';
const helper = path.join(import.meta.dirname, 'wordpress-site.php');
const packages = ['wordpress', 'php-cli', 'php-mysql'];
const installLock = path.join(tmpdir(), 'sps-wordpress-apt.lock');
const run = promisify(execFile);

function wordpressInstalled(): boolean {
  if (!existsSync(path.join(wordpressRoot, 'wp-load.php')) || !hasCommand('php')) return false;
  return execFileSync('php', ['-m'], { encoding: 'utf8' }).split('\n').includes('mysqli');
}

/**
 * Installs the Debian packages when missing (about 30 s; at once afterwards). Test files that
 * start at the same time take turns on a lock file, so only the first runs apt-get.
 */
export function ensureWordpressPackages(log: (line: string) => void): void {
  if (wordpressInstalled()) return;
  if (process.getuid?.() !== 0 || !hasCommand('apt-get')) {
    throw new Error(`WordPress is not installed; install the Debian packages: apt-get install ${packages.join(' ')}`);
  }
  log(`installing ${packages.join(', ')} with apt-get (one time)...`);
  const started = Date.now();
  const install = [
    // Another file may have installed them while this one waited for the lock.
    `test -f ${wordpressRoot}/wp-load.php && php -m | grep -qx mysqli && exit 0`,
    'apt-get update -qq',
    `apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=300 ${packages.join(' ')}`,
  ].join('; ');
  execFileSync('flock', ['-w', '600', installLock, 'sh', '-ec', install], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  if (!wordpressInstalled()) throw new Error(`installed ${packages.join(', ')} but WordPress still cannot load`);
  log(`WordPress packages installed in ${String(Math.round((Date.now() - started) / 1000))} s`);
}

async function sql(statements: string): Promise<void> {
  await run('mariadb', ['--protocol=TCP', '-h', '127.0.0.1', '-P', '3306', '-u', 'root', '-e', statements]);
}

/** MariaDB as the machines run it; started with the machines' own command when it is installed but stopped. */
async function ensureMariaDb(log: (line: string) => void): Promise<void> {
  if (await portIsOpen('127.0.0.1', 3306)) return;
  if (!existsSync('/usr/sbin/mariadbd')) {
    throw new Error('MariaDB does not answer on 127.0.0.1:3306 and is not installed');
  }
  log('starting MariaDB...');
  execFileSync('start-stop-daemon', ['--start', '--oknodo', '--background', '--exec', '/usr/sbin/mariadbd']);
  await waitForPort('127.0.0.1', 3306, { timeoutMs: 30_000, what: 'MariaDB' });
}

const processAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    // ESRCH: no such process (EPERM cannot happen: we are root).
    return false;
  }
};

/** Databases, users, configs and folders of sites whose test process died without stopping them. */
async function removeAbandonedSites(log: (line: string) => void): Promise<void> {
  for (const file of readdirSync(configDir).filter((name) => name.startsWith(`config-${sitePrefix}`))) {
    const text = readFileSync(path.join(configDir, file), 'utf8');
    const owner = /^\/\/ owner (\d+) (\S+) (\S+)$/m.exec(text);
    if (owner === null || processAlive(Number(owner[1]))) continue;
    log(`removing the abandoned test site ${file}`);
    await dropSite(owner[2] ?? '', owner[3] ?? '', path.join(configDir, file));
  }
}

async function dropSite(database: string, siteDir: string, configFile: string): Promise<void> {
  if (/^sps_wp_[0-9a-f]+$/.test(database)) {
    await sql(`DROP DATABASE IF EXISTS ${database}; DROP USER IF EXISTS '${database}'@'127.0.0.1';`);
  }
  rmSync(configFile, { force: true });
  if (siteDir.startsWith(path.join(tmpdir(), 'sps-wordpress-'))) rmSync(siteDir, { recursive: true, force: true });
}

export interface WordpressSiteOptions {
  /** `/%postname%/` permalinks, so the REST API answers at /wp-json/ too; otherwise ?rest_route= only. */
  prettyPermalinks?: boolean;
  /**
   * A post meta key to expose in the REST API for posts (not pages) the way a site exposes its
   * SEO plugin's canonical field (register_post_meta with show_in_rest), from a must-use plugin.
   */
  canonicalMetaKey?: string;
}

export interface RunningWordpress {
  /** http://127.0.0.1:PORT, no trailing slash. */
  url: string;
  /** The site's wp-content, where its uploads land. */
  contentDir: string;
  /** An application password of the `admin` user, for the tests' own reads. */
  adminPassword: string;
  /** Milliseconds from the first step to a site answering, packages already installed. */
  startedInMs: number;
  /** Runs a command of wordpress-site.php on the site; answers its JSON. */
  chore(command: string, args: Record<string, unknown>): Promise<unknown>;
  output(): string;
  stop(): Promise<void>;
}

/** A fresh site: database, config, install, then PHP's built-in server. About half a second once installed. */
export async function startWordpress(
  options: WordpressSiteOptions,
  log: (line: string) => void,
): Promise<RunningWordpress> {
  ensureWordpressPackages(log);
  const started = Date.now();
  await ensureMariaDb(log);
  await removeAbandonedSites(log);
  const id = randomBytes(5).toString('hex');
  const name = `${sitePrefix}${id}`;
  const database = `sps_wp_${id}`;
  const dbPassword = randomBytes(12).toString('hex');
  const siteDir = mkdtempSync(path.join(tmpdir(), 'sps-wordpress-'));
  const contentDir = path.join(siteDir, 'wp-content');
  const configFile = path.join(configDir, `config-${name}.php`);
  const port = await freePort();
  const url = `http://127.0.0.1:${String(port)}`;

  mkdirSync(path.join(contentDir, 'uploads'), { recursive: true });
  mkdirSync(path.join(contentDir, 'mu-plugins'), { recursive: true });
  await sql(`CREATE DATABASE ${database}; CREATE USER '${database}'@'127.0.0.1' IDENTIFIED BY '${dbPassword}'; `
    + `GRANT ALL PRIVILEGES ON ${database}.* TO '${database}'@'127.0.0.1';`);
  writeFileSync(configFile, [
    '<?php',
    `// owner ${String(process.pid)} ${database} ${siteDir}`,
    `define('DB_NAME', '${database}');`,
    `define('DB_USER', '${database}');`,
    `define('DB_PASSWORD', '${dbPassword}');`,
    "define('DB_HOST', '127.0.0.1');",
    `define('WP_CONTENT_DIR', '${contentDir}');`,
    // Application passwords need https unless the site says it is a local one.
    "define('WP_ENVIRONMENT_TYPE', 'local');",
    // No cron requests to itself and no calls to wordpress.org from a test machine.
    "define('DISABLE_WP_CRON', true);",
    "define('WP_HTTP_BLOCK_EXTERNAL', true);",
    "define('AUTOMATIC_UPDATER_DISABLED', true);",
    '',
  ].join('\n'), { mode: 0o600 });
  writeFileSync(path.join(siteDir, 'prepend.php'), `<?php $_SERVER['WORDPRESS_CONFIG'] = '${name}';\n`);
  // The uploads are in the site's own wp-content, outside the document root: the router serves them.
  writeFileSync(path.join(siteDir, 'router.php'), [
    '<?php',
    "$path = rawurldecode(parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH));",
    "if (str_starts_with($path, '/wp-content/uploads/') && !str_contains($path, '..')) {",
    `  $file = '${siteDir}' . $path;`,
    "  if (is_file($file)) { header('Content-Type: ' . mime_content_type($file)); readfile($file); return true; }",
    '}',
    'return false;',
    '',
  ].join('\n'));
  if (options.canonicalMetaKey !== undefined) {
    writeFileSync(path.join(contentDir, 'mu-plugins', 'canonical-field.php'), [
      '<?php',
      "add_action('init', function () {",
      `  register_post_meta('post', '${options.canonicalMetaKey}', [`,
      "    'show_in_rest' => true, 'single' => true, 'type' => 'string',",
      "    'auth_callback' => function ($allowed, $key, $post_id) {",
      "      return current_user_can('edit_post', $post_id);",
      '    },',
      '  ]);',
      '});',
      '',
    ].join('\n'));
  }

  async function chore(command: string, args: Record<string, unknown>): Promise<unknown> {
    const { stdout } = await run('php', [helper, command, JSON.stringify(args)], {
      env: { ...process.env, SPS_WORDPRESS_CONFIG: name, SPS_WORDPRESS_URL: url },
    });
    return JSON.parse(stdout.trim().split('\n').at(-1) ?? 'null') as unknown;
  }

  let serverOutput = '';
  let stopServer = (): Promise<void> => Promise.resolve();
  try {
    const prettyPermalinks = options.prettyPermalinks ?? true;
    const installed = await chore('install', { title: 'SPS test site', prettyPermalinks });
    const adminPassword = (installed as { adminPassword: string }).adminPassword;
    // Its own process group: the server forks workers, and stopping the group stops them all.
    const server = spawn('php', [
      '-d', `auto_prepend_file=${path.join(siteDir, 'prepend.php')}`,
      '-S', `127.0.0.1:${String(port)}`, '-t', wordpressRoot, path.join(siteDir, 'router.php'),
    ], {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      // Two workers: a request that waits on another one (WordPress calling itself) must not block the site.
      env: { ...process.env, PHP_CLI_SERVER_WORKERS: '2' },
    });
    const collect = (chunk: Buffer): void => { serverOutput = `${serverOutput}${chunk.toString()}`.slice(-20_000); };
    server.stdout.on('data', collect);
    server.stderr.on('data', collect);
    const exited = new Promise<void>((resolve) => server.once('exit', () => { resolve(); }));
    stopServer = async () => {
      if (server.pid !== undefined && server.exitCode === null) process.kill(-server.pid, 'SIGTERM');
      await exited;
    };
    await waitForPort('127.0.0.1', port, {
      timeoutMs: 10_000, what: 'PHP\'s built-in server', isAlive: () => server.exitCode === null,
    });
    const startedInMs = Date.now() - started;
    return {
      url,
      contentDir,
      adminPassword,
      startedInMs,
      chore,
      output: () => serverOutput,
      async stop() {
        await stopServer();
        await dropSite(database, siteDir, configFile);
      },
    };
  } catch (error) {
    await stopServer();
    await dropSite(database, siteDir, configFile);
    throw new Error(`the test WordPress did not start: ${String(error)}\n${serverOutput}`, { cause: error });
  }
}
