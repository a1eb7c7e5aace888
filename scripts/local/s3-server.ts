import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import { buildCachePath } from './build-cache.ts';
import { hasCommand } from './system-package.ts';
import { waitForPort } from './wait-for-port.ts';

/**
 * A real S3-compatible server for the S3 driver's tests: Versity's S3 gateway over a folder
 * (Apache-2.0, from the Go module proxy, verifies SigV4 signatures and does multipart uploads).
 * Production uses MinIO or S3 itself (docker-compose.yml); MinIO images cannot be fetched here.
 */
export const versityVersion = 'v1.8.0';
const binDir = buildCachePath(`versitygw-${versityVersion}`);
const binary = path.join(binDir, 'versitygw');

export function buildS3Server(log: (line: string) => void): string {
  if (existsSync(binary)) return binary;
  if (!hasCommand('go')) throw new Error('Go is needed to build the S3-compatible test server (versitygw)');
  log(`building versitygw ${versityVersion} (first run only, about 2 minutes)...`);
  const started = Date.now();
  execFileSync('go', ['install', `github.com/versity/versitygw/cmd/versitygw@${versityVersion}`], {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, GOBIN: binDir, CGO_ENABLED: '0' },
  });
  log(`versitygw built in ${Math.round((Date.now() - started) / 1000)} s`);
  return binary;
}

export interface RunningS3Server {
  endpoint: string;
  accessKeyId: string;
  secretAccessKey: string;
  child: ChildProcess;
}

export async function startS3Server(options: { port: number; dataDir: string; logFile: string }, log: (line: string) => void): Promise<RunningS3Server> {
  const executable = buildS3Server(log);
  mkdirSync(options.dataDir, { recursive: true });
  const accessKeyId = 'sps-test-access';
  const secretAccessKey = 'sps-test-secret-key-0123456789';
  const logFd = openSync(options.logFile, 'a');
  const child = spawn(executable, ['--access', accessKeyId, '--secret', secretAccessKey, '--port', `127.0.0.1:${options.port}`, 'posix', options.dataDir], { stdio: ['ignore', logFd, logFd] });
  closeSync(logFd);
  let exited = false;
  child.once('exit', () => { exited = true; });
  await waitForPort('127.0.0.1', options.port, { timeoutMs: 20_000, isAlive: () => !exited, what: `versitygw (log: ${options.logFile})` });
  return { endpoint: `http://127.0.0.1:${options.port}`, accessKeyId, secretAccessKey, child };
}
