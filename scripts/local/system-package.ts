import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** True when `command` is on PATH. */
export function hasCommand(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

/**
 * Makes sure a binary from a Debian package is present, installing the package with apt-get
 * when we are root (our machines and CI are); otherwise says exactly what to install.
 */
export function ensureDebianPackage(command: string, debianPackage: string, log: (line: string) => void): void {
  ensureInstalled({ what: command, present: () => hasCommand(command) }, debianPackage, log);
}

/** The same for a package that brings files rather than a command (a font). */
export function ensureDebianFile(file: string, debianPackage: string, log: (line: string) => void): void {
  ensureInstalled({ what: file, present: () => existsSync(file) }, debianPackage, log);
}

function ensureInstalled(
  wanted: { what: string; present: () => boolean },
  debianPackage: string,
  log: (line: string) => void,
): void {
  if (wanted.present()) return;
  const isRoot = process.getuid?.() === 0;
  if (!isRoot || !hasCommand('apt-get')) {
    const install = `sudo apt-get install -y ${debianPackage}`;
    throw new Error(`${wanted.what} is not installed; install the "${debianPackage}" package (e.g. ${install})`);
  }
  log(`installing ${debianPackage} with apt-get (one time)...`);
  // apt-get's chatter goes to stderr: a script's stdout may be what its caller reads (the upload
  // benchmark prints its figures there as JSON), and the first run on a fresh machine installs.
  const stdio: ['ignore', number, number] = ['ignore', 2, 2];
  execFileSync('apt-get', ['update', '-qq'], { stdio });
  execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', debianPackage], {
    stdio,
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  if (!wanted.present()) throw new Error(`installed ${debianPackage} but ${wanted.what} is still missing`);
}
