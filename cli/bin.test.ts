import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  binPath, removeTemporaryFolders, runBin, runCli, temporaryFolder, temporaryHome,
} from './test/run-cli.ts';

const commands = [
  'auth:login', 'auth:status', 'auth:logout',
  'integrations:list', 'integrations:settings', 'integrations:trigger',
  'posts:create', 'posts:validate', 'posts:list', 'posts:get', 'posts:delete', 'posts:status', 'posts:missing',
  'posts:connect', 'posts:retry',
  'upload', 'upload:url', 'media:get', 'notifications:list', 'analytics:platform', 'analytics:post', 'video:generate',
  'keys:list', 'keys:create', 'keys:revoke', 'mcp',
];

/** A Node on PATH too old to strip types (the machines ship Node 20), if this machine has one. */
function oldNode(): string | undefined {
  const projectBin = realpathSync(path.join(import.meta.dirname, '..', 'node_modules'));
  for (const folder of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(folder, 'node');
    if (folder === '' || !existsSync(candidate) || realpathSync(candidate).startsWith(projectBin)) continue;
    const [major = 0, minor = 0] = execFileSync(candidate, ['--version'], { encoding: 'utf8' }).trim().replace(/^v/, '').split('.').map(Number);
    if (major < 22 || (major === 22 && minor < 18)) return candidate;
  }
  return undefined;
}
const legacyNode = oldNode();

describe('the sps bin', () => {
  afterAll(removeTemporaryFolders);

  it('is an executable Node script', () => {
    expect(readFileSync(binPath, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
    expect(statSync(binPath).mode & 0o111).toBe(0o111);
  });

  it('sps --help lists the commands in groups and explains the credentials', async () => {
    const home = temporaryHome();
    const run = await runBin(['--help'], { home });
    expect(run.code).toBe(0);
    for (const heading of ['Authentication:', 'Channels (integrations):', 'Posts:', 'Media:', 'Notifications:', 'Analytics:', 'Video:']) expect(run.stdout).toContain(heading);
    for (const command of commands) expect(run.stdout).toMatch(new RegExp(`^ {2}${command} `, 'm'));
    for (const variable of ['SERVICE_API_KEY', 'SERVICE_API_URL', 'SERVICE_AUTH_SERVER']) expect(run.stdout).toContain(variable);
    expect(run.stdout).toContain(path.join(home, '.service', 'credentials.json'));
    expect(run.stdout).toContain('the saved login wins over SERVICE_API_KEY');
  });

  // The program's text, not the bin: run in this process (the bin's own --help is the test above).
  it.each(commands)('sps %s --help has a one-line description and an example', async (command) => {
    const run = await runCli([command, '--help'], { home: temporaryHome() });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^Usage: sps ${command}`));
    expect(run.stdout.split('\n')[2]?.trim()).not.toBe('');
    expect(run.stdout).toMatch(new RegExp(`Example:\\n {2}\\$ sps ${command}( |\\n)`));
  });

  it('keeps its compiled code between runs in Node\'s cache under the temporary directory', async () => {
    const temporary = temporaryFolder('sps-cli-tmp-');
    const run = await runBin(['--help'], { home: temporaryHome(), env: { TMPDIR: temporary } });
    expect(run.code).toBe(0);
    const cache = path.join(temporary, 'node-compile-cache');
    expect(existsSync(cache) && readdirSync(cache, { recursive: true }).length).toBeGreaterThan(0);
  });

  it('an unknown command exits 1', async () => {
    const run = await runBin(['posts:publish'], { home: temporaryHome() });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('unknown command \'posts:publish\'');
  });

  describe.runIf(legacyNode !== undefined)(`on a Node that cannot strip types (${legacyNode ?? 'none found'})`, () => {
    it('hands the command to the project\'s Node 24 with the same arguments and exit code', async () => {
      const help = await runBin(['posts:get', '--help'], { home: temporaryHome(), node: legacyNode });
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(/^Usage: sps posts:get/);
      const failing = await runBin(['posts:get', 'some-id'], { home: temporaryHome(), node: legacyNode });
      expect(failing.code).toBe(1);
      expect(failing.stderr).toContain('not logged in: run `sps auth:login`');
    });

    it('asks for Node 22.18 or later when the project\'s Node is missing', async () => {
      const elsewhere = path.join(temporaryFolder('sps-bin-copy-'), 'cli');
      mkdirSync(elsewhere);
      copyFileSync(binPath, path.join(elsewhere, 'sps.mjs'));
      const bin = path.join(elsewhere, 'sps.mjs');
      const run = await runBin(['--help'], { home: temporaryHome(), node: legacyNode, bin });
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/^sps needs Node\.js 22\.18 or later \(this is Node 2\d\.[\d.]+\) and the project's Node 24 \(node_modules\/node\/bin\/node\) is missing\.$/m);
    });
  });
});
