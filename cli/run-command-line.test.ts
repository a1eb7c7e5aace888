import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeTemporaryFolders, runCli, temporaryHome } from './test/run-cli.ts';

describe('runCommandLine: one sps command in this process, with a terminal of its own', () => {
  afterAll(removeTemporaryFolders);

  it('keeps each run to its own home, environment and output, even when runs overlap', async () => {
    const homes = [temporaryHome(), temporaryHome(), temporaryHome()];
    const runs = await Promise.all(homes.map((home, index) => runCli(['auth:logout'], {
      home, env: index === 1 ? { SERVICE_API_KEY: 'sps_key_of_the_second_run' } : {},
    })));
    runs.forEach((run, index) => {
      expect(run.code).toBe(0);
      expect(run.stdout).toBe('');
      const file = path.join(homes[index] ?? '', '.service', 'credentials.json');
      expect(run.stderr).toContain(`No stored credentials at ${file}`);
      expect(run.stderr.includes('SERVICE_API_KEY is still set')).toBe(index === 1);
    });
  });

  it('answers commander\'s exit codes instead of ending the process: 0 for --help, 1 for a usage error', async () => {
    const help = await runCli(['posts:get', '--help'], { home: temporaryHome() });
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: sps posts:get/);
    const missing = await runCli(['posts:get'], { home: temporaryHome() });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('missing required argument');
  });

  it('prints a command\'s failure on its stderr with exit code 1', async () => {
    const run = await runCli(['integrations:list'], { home: temporaryHome() });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^Error: not logged in/);
  });
});
