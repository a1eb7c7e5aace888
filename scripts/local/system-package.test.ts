import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const folder = mkdtempSync(path.join(tmpdir(), 'sps-apt-'));
afterAll(() => { rmSync(folder, { recursive: true, force: true }); });

/**
 * An `apt-get` first on PATH that talks on stdout as the real one does and "installs" by making
 * the file asked for; the module runs in a child process whose stdout is read.
 */
function installInChild(wanted: string): { stdout: string; stderr: string; status: number | null } {
  const fakeAptGet = path.join(folder, 'apt-get');
  writeFileSync(fakeAptGet, `#!/bin/sh\necho "Selecting previously unselected package $*"\ntouch "${wanted}"\n`);
  chmodSync(fakeAptGet, 0o755);
  const module = path.join(import.meta.dirname, 'system-package.ts');
  const script = `const { ensureDebianFile } = await import(${JSON.stringify(module)});` +
    `ensureDebianFile(${JSON.stringify(wanted)}, 'some-package', (line) => process.stderr.write(line + '\\n'));` +
    `process.stdout.write('{"figures":1}');`;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8', env: { ...process.env, PATH: `${folder}:${process.env.PATH ?? ''}` },
  });
  return { stdout: child.stdout, stderr: child.stderr, status: child.status };
}

describe.runIf(process.getuid?.() === 0)('installing a Debian package', () => {
  it("keeps apt-get's output off stdout, which a script's caller may be reading", () => {
    const result = installInChild(path.join(folder, 'installed-file'));
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toBe('{"figures":1}');
    expect(result.stderr).toContain('Selecting previously unselected package');
  });
});
