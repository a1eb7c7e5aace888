import { execFileSync, spawnSync } from 'node:child_process';

/** True when `command` is on PATH. */
export function hasCommand(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

/**
 * Makes sure a binary from a Debian package is present, installing the package with apt-get
 * when we are root (our machines and CI are); otherwise says exactly what to install.
 */
export function ensureDebianPackage(command: string, debianPackage: string, log: (line: string) => void): void {
  if (hasCommand(command)) return;
  const isRoot = process.getuid?.() === 0;
  if (!isRoot || !hasCommand('apt-get')) {
    throw new Error(`${command} is not installed; install the "${debianPackage}" package (e.g. sudo apt-get install -y ${debianPackage})`);
  }
  log(`installing ${debianPackage} with apt-get (one time)...`);
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit' });
  execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', debianPackage], {
    stdio: 'inherit',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  if (!hasCommand(command)) throw new Error(`installed ${debianPackage} but ${command} is still not on PATH`);
}
